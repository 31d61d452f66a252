import DeleteIcon from '@mui/icons-material/DeleteOutlined';
import { Alert, Box, Button, MenuItem, Stack, TextField, Typography } from '@mui/material';
import { WORKFLOW_JOINS, type Template, type Workflow, type WorkflowJoin, type WorkflowNode } from '@gantry/contracts';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ApprovalFields } from './approval-fields';
import { incoming, type Draft } from './draft';
import { NumberField } from './number-field';
import { OverrideFields } from './override-fields';

/** The selected node's settings: id, what it runs, join, retries, timeout, approvers, overrides. */
export function NodePanel({
  projectId,
  draft,
  node,
  templates,
  workflows,
  problem,
  onChange,
  onRename,
  onJoin,
  onRemove,
}: {
  projectId: number;
  draft: Draft;
  node: WorkflowNode;
  templates: Template[];
  /** The project's other workflows (a workflow node runs one). */
  workflows: Workflow[];
  /** The text of the refusal that names this node, if any. */
  problem: string | null;
  onChange(patch: Partial<WorkflowNode>): void;
  onRename(id: string): void;
  onJoin(join: WorkflowJoin): void;
  onRemove(): void;
}) {
  const { t } = useTranslation();
  const [id, setId] = useState(node.id);
  useEffect(() => setId(node.id), [node.id]);
  const template = node.type === 'template' ? templates.find((x) => x.id === node.template_id) : undefined;
  const f = (name: string) => `wf-node-${name}`;
  return (
    <Box component="section" aria-labelledby={f('title')} data-testid="node-panel">
      <Typography
        id={f('title')}
        variant="subtitle1"
        component="h2"
        sx={{ fontWeight: 600, mb: 1, overflowWrap: 'anywhere' }}
      >
        {t('workflows.nodeTitle', { id: node.id, type: t(`workflows.types.${node.type}`) })}
      </Typography>
      {problem ? (
        <Alert severity="error" sx={{ mb: 2 }}>
          {problem}
        </Alert>
      ) : null}
      <Stack spacing={2}>
        <TextField
          id={f('id')}
          size="small"
          label={t('workflows.nodeId')}
          value={id}
          helperText={t('workflows.nodeIdHelp')}
          onChange={(e) => setId(e.target.value)}
          onBlur={() => (id.trim() ? onRename(id.trim()) : setId(node.id))}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && id.trim()) onRename(id.trim());
          }}
        />
        {node.type === 'template' ? (
          <TextField
            select
            id={f('template')}
            size="small"
            label={t('fieldLabels.template')}
            value={node.template_id ?? ''}
            onChange={(e) => onChange({ template_id: Number(e.target.value), params: null })}
          >
            {templates.map((x) => (
              <MenuItem key={x.id} value={x.id}>
                {x.name}
              </MenuItem>
            ))}
          </TextField>
        ) : null}
        {node.type === 'workflow' ? (
          <TextField
            select
            id={f('workflow')}
            size="small"
            label={t('fieldLabels.workflow')}
            value={node.workflow_id ?? ''}
            onChange={(e) => onChange({ workflow_id: Number(e.target.value) })}
          >
            {workflows.map((x) => (
              <MenuItem key={x.id} value={x.id}>
                {x.name}
              </MenuItem>
            ))}
          </TextField>
        ) : null}
        {incoming(draft, node.id) > 1 ? (
          <TextField
            select
            id={f('join')}
            size="small"
            label={t('workflows.join')}
            value={draft.joins[node.id] ?? 'all'}
            onChange={(e) => onJoin(e.target.value as WorkflowJoin)}
          >
            {WORKFLOW_JOINS.map((j) => (
              <MenuItem key={j} value={j}>
                {t(`workflows.joins.${j}`)}
              </MenuItem>
            ))}
          </TextField>
        ) : null}
        {node.type === 'approval' ? <ApprovalFields projectId={projectId} node={node} onChange={onChange} /> : null}
        {node.type !== 'approval' ? (
          <>
            <NumberField
              id={f('retries')}
              label={t('fieldLabels.retries')}
              value={node.retries}
              onChange={(v) => onChange({ retries: v ?? 0 })}
            />
            <NumberField
              id={f('delay')}
              label={t('workflows.retryDelaySeconds')}
              value={node.retry_delay_seconds}
              helperText={t('workflows.retryDelayHelp')}
              onChange={(v) => onChange({ retry_delay_seconds: v ?? 0 })}
            />
          </>
        ) : null}
        <NumberField
          id={f('timeout')}
          label={t('workflows.timeoutSeconds')}
          min={1}
          value={node.timeout_seconds}
          helperText={t('workflows.timeoutHelp')}
          onChange={(v) => onChange({ timeout_seconds: v })}
        />
        {template ? (
          <OverrideFields
            projectId={projectId}
            nodeId={node.id}
            template={template}
            params={node.params}
            onChange={(params) => onChange({ params })}
          />
        ) : null}
        <Box>
          <Button color="error" variant="outlined" startIcon={<DeleteIcon />} onClick={onRemove}>
            {t('workflows.removeNode', { id: node.id })}
          </Button>
        </Box>
      </Stack>
    </Box>
  );
}
