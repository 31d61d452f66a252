import AddIcon from '@mui/icons-material/Add';
import DeleteIcon from '@mui/icons-material/DeleteOutlined';
import ErrorIcon from '@mui/icons-material/ErrorOutlined';
import {
  Box,
  Button,
  IconButton,
  List,
  ListItem,
  ListItemButton,
  ListItemText,
  MenuItem,
  Stack,
  TextField,
  Tooltip,
  Typography,
} from '@mui/material';
import {
  WORKFLOW_EDGE_CONDITIONS,
  WORKFLOW_NODE_TYPES,
  type WorkflowEdge,
  type WorkflowEdgeCondition,
  type WorkflowNodeType,
} from '@gantry/contracts';
import { useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { VisuallyHidden } from '../../../components/visually-hidden';
import type { Draft } from './draft';
import { EDGE_LOOK } from './edge-style';

/** The palette and the list of nodes: add a node of each type, select one, remove one (all by keyboard). */
export function NodeList({
  draft,
  selected,
  problemNode,
  detail,
  onAdd,
  onSelect,
  onRemove,
}: {
  draft: Draft;
  selected: string | null;
  problemNode: string | null;
  detail(id: string): string;
  onAdd(type: WorkflowNodeType): void;
  onSelect(id: string): void;
  onRemove(id: string): void;
}) {
  const { t } = useTranslation();
  return (
    <Box component="section" aria-labelledby="wf-nodes-title">
      <Typography id="wf-nodes-title" variant="subtitle1" component="h2" sx={{ fontWeight: 600 }}>
        {t('workflows.nodes')}
      </Typography>
      <Stack direction="row" sx={{ flexWrap: 'wrap', gap: 1, my: 1 }}>
        {WORKFLOW_NODE_TYPES.map((type) => (
          <Button key={type} size="small" variant="outlined" startIcon={<AddIcon />} onClick={() => onAdd(type)}>
            {t(`workflows.add.${type}`)}
          </Button>
        ))}
      </Stack>
      {draft.nodes.length === 0 ? (
        <Typography variant="body2" color="text.secondary">
          {t('workflows.noNodes')}
        </Typography>
      ) : (
        <List dense aria-label={t('workflows.nodes')} disablePadding>
          {draft.nodes.map((n) => (
            <ListItem
              key={n.id}
              disablePadding
              secondaryAction={
                <Tooltip title={t('workflows.removeNode', { id: n.id })}>
                  <IconButton
                    edge="end"
                    size="small"
                    aria-label={t('workflows.removeNode', { id: n.id })}
                    onClick={() => onRemove(n.id)}
                  >
                    <DeleteIcon fontSize="small" />
                  </IconButton>
                </Tooltip>
              }
            >
              <ListItemButton
                selected={n.id === selected}
                onClick={() => onSelect(n.id)}
                aria-current={n.id === selected ? 'true' : undefined}
                data-testid="node-item"
              >
                {n.id === problemNode ? (
                  <ErrorIcon color="error" fontSize="small" sx={{ mr: 1 }} titleAccess={t('workflows.hasProblem')} />
                ) : null}
                <ListItemText
                  primary={n.id}
                  secondary={[t(`workflows.types.${n.type}`), detail(n.id)].filter(Boolean).join(' · ')}
                  slotProps={{ primary: { sx: { overflowWrap: 'anywhere' } } }}
                />
              </ListItemButton>
            </ListItem>
          ))}
        </List>
      )}
    </Box>
  );
}

/** The edges with their condition (chosen here), a remove button each, and a form to add one. */
export function EdgeList({
  draft,
  onAdd,
  onCondition,
  onRemove,
}: {
  draft: Draft;
  onAdd(edge: WorkflowEdge): void;
  onCondition(index: number, on: WorkflowEdgeCondition): void;
  onRemove(index: number): void;
}) {
  const { t } = useTranslation();
  const ids = draft.nodes.map((n) => n.id);
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [on, setOn] = useState<WorkflowEdgeCondition>('success');
  const conditionSelect = (
    value: WorkflowEdgeCondition,
    onChange: (v: WorkflowEdgeCondition) => void,
    label: ReactNode,
    id: string,
  ) => (
    <TextField
      select
      size="small"
      id={id}
      label={label}
      value={value}
      onChange={(e) => onChange(e.target.value as WorkflowEdgeCondition)}
      sx={{ minWidth: 130 }}
    >
      {WORKFLOW_EDGE_CONDITIONS.map((c) => (
        <MenuItem key={c} value={c}>
          <Box
            component="span"
            aria-hidden
            sx={{
              display: 'inline-block',
              width: 18,
              mr: 1,
              borderTop: 3,
              borderColor: `${EDGE_LOOK[c].color}.main`,
              borderTopStyle: EDGE_LOOK[c].dash ? 'dashed' : 'solid',
              verticalAlign: 'middle',
            }}
          />
          {t(`workflows.conditions.${c}`)}
        </MenuItem>
      ))}
    </TextField>
  );
  return (
    <Box component="section" aria-labelledby="wf-edges-title">
      <Typography id="wf-edges-title" variant="subtitle1" component="h2" sx={{ fontWeight: 600 }}>
        {t('workflows.edges')}
      </Typography>
      {draft.edges.length === 0 ? (
        <Typography variant="body2" color="text.secondary" sx={{ my: 1 }}>
          {t('workflows.noEdges')}
        </Typography>
      ) : (
        <List dense aria-label={t('workflows.edges')} disablePadding>
          {draft.edges.map((e, i) => (
            <ListItem
              key={`${e.from}-${e.to}-${i}`}
              disableGutters
              sx={{ gap: 1, flexWrap: 'wrap' }}
              data-testid="edge-item"
            >
              <Typography variant="body2" sx={{ flex: '1 1 120px', overflowWrap: 'anywhere' }}>
                {t('workflows.edgeText', { from: e.from, to: e.to })}
              </Typography>
              {conditionSelect(
                e.on,
                (v) => onCondition(i, v),
                // Short on screen; the full "Condition of a → b" for screen readers, so each edge's select has its own name.
                <>
                  <span aria-hidden>{t('workflows.condition')}</span>
                  <VisuallyHidden>{t('workflows.conditionOf', { from: e.from, to: e.to })}</VisuallyHidden>
                </>,
                `wf-edge-${i}-on`,
              )}
              <Tooltip title={t('workflows.removeEdge', { from: e.from, to: e.to })}>
                <IconButton
                  size="small"
                  aria-label={t('workflows.removeEdge', { from: e.from, to: e.to })}
                  onClick={() => onRemove(i)}
                >
                  <DeleteIcon fontSize="small" />
                </IconButton>
              </Tooltip>
            </ListItem>
          ))}
        </List>
      )}
      {ids.length > 1 ? (
        <Stack
          direction="row"
          sx={{ flexWrap: 'wrap', gap: 1, mt: 1, alignItems: 'center' }}
          component="form"
          aria-label={t('workflows.addEdge')}
          onSubmit={(e) => {
            e.preventDefault();
            if (from && to) onAdd({ from, to, on });
          }}
        >
          <TextField
            select
            size="small"
            id="wf-edge-from"
            label={t('workflows.from')}
            value={ids.includes(from) ? from : ''}
            onChange={(e) => setFrom(e.target.value)}
            sx={{ minWidth: 120 }}
          >
            {ids.map((id) => (
              <MenuItem key={id} value={id}>
                {id}
              </MenuItem>
            ))}
          </TextField>
          <TextField
            select
            size="small"
            id="wf-edge-to"
            label={t('workflows.to')}
            value={ids.includes(to) ? to : ''}
            onChange={(e) => setTo(e.target.value)}
            sx={{ minWidth: 120 }}
          >
            {ids
              .filter((id) => id !== from)
              .map((id) => (
                <MenuItem key={id} value={id}>
                  {id}
                </MenuItem>
              ))}
          </TextField>
          {conditionSelect(on, setOn, t('workflows.condition'), 'wf-edge-on')}
          <Button
            type="submit"
            variant="outlined"
            size="small"
            startIcon={<AddIcon />}
            disabled={!ids.includes(from) || !ids.includes(to) || from === to}
          >
            {t('workflows.addEdge')}
          </Button>
        </Stack>
      ) : null}
    </Box>
  );
}
