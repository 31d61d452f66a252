import {
  Alert,
  Box,
  Button,
  Chip,
  CircularProgress,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  MenuItem,
  Stack,
  Table,
  TableBody,
  TableCell,
  TableHead,
  TableRow,
  TextField,
  Typography,
  useMediaQuery,
  useTheme,
} from '@mui/material';
import type { PlanAttributeChange, StateResourceDiff, TerraformStateVersion } from '@gantry/contracts';
import { useQuery } from '@tanstack/react-query';
import { Fragment, useId, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { errorText } from '../../../lib/error-text';
import { formatDateTime } from '../../../lib/format';
import { stateDiffQuery } from '../api/workspaces-api';

/** Sign and colour of a resource's change, as `terraform plan` marks them. */
const CHANGE_STYLE: Record<StateResourceDiff['change'], { sign: string; color: 'success' | 'info' | 'error' }> = {
  added: { sign: '+', color: 'success' },
  changed: { sign: '~', color: 'info' },
  removed: { sign: '-', color: 'error' },
};

/**
 * What changed between two state versions of a workspace: resources added, removed or changed by
 * address with each changed attribute (before and after, sensitive values hidden by the server),
 * and the outputs that changed. Starts with the two newest.
 */
export function StateDiffDialog({
  projectId,
  inventoryId,
  versions,
  onClose,
}: {
  projectId: number;
  inventoryId: number;
  /** Newest first, as listed; at least two. */
  versions: TerraformStateVersion[];
  onClose(): void;
}) {
  const { t } = useTranslation();
  // A phone gets the whole screen: the attribute tables need the width.
  const phone = useMediaQuery(useTheme().breakpoints.down('sm'), { noSsr: true });
  const [from, setFrom] = useState(versions[1]?.id ?? versions[0]!.id);
  const [to, setTo] = useState(versions[0]!.id);
  const q = useQuery({ ...stateDiffQuery(projectId, inventoryId, from, to), enabled: from !== to });
  const label = (v: TerraformStateVersion) =>
    t('terraformBackend.versionLabel', { id: v.id, serial: v.serial ?? '—', created: formatDateTime(v.created) });
  const picker = (name: string, value: number, onChange: (id: number) => void) => (
    <TextField
      select
      size="small"
      label={name}
      value={value}
      onChange={(e) => onChange(Number(e.target.value))}
      sx={{ flex: 1, minWidth: 0 }}
    >
      {versions.map((v) => (
        <MenuItem key={v.id} value={v.id}>
          {label(v)}
        </MenuItem>
      ))}
    </TextField>
  );
  const diff = from !== to ? q.data : undefined;
  const count = (change: StateResourceDiff['change']) => diff?.resources.filter((r) => r.change === change).length ?? 0;
  return (
    <Dialog open onClose={onClose} maxWidth="md" fullWidth fullScreen={phone}>
      <DialogTitle>{t('terraformBackend.compareTitle')}</DialogTitle>
      <DialogContent>
        <Stack spacing={2} sx={{ pt: 1 }}>
          <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2}>
            {picker(t('terraformBackend.from'), from, setFrom)}
            {picker(t('terraformBackend.to'), to, setTo)}
          </Stack>
          {from === to ? <Alert severity="info">{t('stateHistory.sameVersion')}</Alert> : null}
          {q.isError && from !== to ? <Alert severity="error">{errorText(q.error)}</Alert> : null}
          {q.isLoading ? <CircularProgress size={24} aria-label={t('app.loading')} /> : null}
          {diff ? (
            <Stack spacing={2} data-testid="state-diff">
              <Typography variant="body2" role="status">
                {t('stateHistory.diffSummary', {
                  added: count('added'),
                  changed: count('changed'),
                  removed: count('removed'),
                  outputs: diff.outputs.length,
                })}
              </Typography>
              {diff.resources.length === 0 && diff.outputs.length === 0 ? (
                <Alert severity="info">{t('stateHistory.noDifferences')}</Alert>
              ) : null}
              {diff.resources.map((r) => (
                <ResourceChange key={r.address} resource={r} />
              ))}
              {diff.outputs.length > 0 ? (
                <Box component="section" data-testid="state-diff-outputs">
                  <Typography variant="subtitle2" component="h3" sx={{ mb: 0.5 }}>
                    {t('stateHistory.outputs')}
                  </Typography>
                  <AttributeTable
                    label={t('stateHistory.outputsTable')}
                    changes={diff.outputs}
                    nameColumn={t('stateHistory.output')}
                  />
                </Box>
              ) : null}
            </Stack>
          ) : null}
        </Stack>
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>{t('common.close')}</Button>
      </DialogActions>
    </Dialog>
  );
}

/** One resource: "+ address" with what happened to it, and its attribute changes. */
function ResourceChange({ resource }: { resource: StateResourceDiff }) {
  const { t } = useTranslation();
  const headingId = useId();
  const style = CHANGE_STYLE[resource.change];
  return (
    <Box
      component="section"
      aria-labelledby={headingId}
      data-testid="state-diff-resource"
      data-change={resource.change}
    >
      <Stack direction="row" spacing={1} useFlexGap sx={{ alignItems: 'center', flexWrap: 'wrap', mb: 0.5 }}>
        <Typography
          id={headingId}
          variant="subtitle2"
          component="h3"
          sx={{ fontFamily: 'monospace', overflowWrap: 'anywhere', minWidth: 0 }}
        >
          {style.sign} {resource.address}
        </Typography>
        <Chip
          size="small"
          variant="outlined"
          label={t(`stateHistory.${resource.change}`)}
          // The border carries the colour; the text keeps the theme's contrast.
          sx={{ borderColor: `${style.color}.main`, color: 'text.primary' }}
        />
      </Stack>
      {resource.attributes.length > 0 ? (
        <AttributeTable
          label={t('stateHistory.attributesOf', { address: resource.address })}
          changes={resource.attributes}
          nameColumn={t('stateHistory.attribute')}
        />
      ) : null}
    </Box>
  );
}

/** A dotted path that, when it must wrap, wraps after a dot first (`input.` / `value`). */
function DottedPath({ path }: { path: string }) {
  const parts = path.split('.');
  return (
    <>
      {parts.map((part, i) => (
        <Fragment key={i}>
          {part}
          {i < parts.length - 1 ? (
            <>
              .<wbr />
            </>
          ) : null}
        </Fragment>
      ))}
    </>
  );
}

/** Path, before and after; long values wrap inside their cells, so the table never runs wider than the dialog. */
function AttributeTable({
  label,
  changes,
  nameColumn,
}: {
  label: string;
  changes: PlanAttributeChange[];
  nameColumn: string;
}) {
  const { t } = useTranslation();
  const cell = {
    fontFamily: 'monospace',
    fontSize: 12,
    overflowWrap: 'anywhere',
    whiteSpace: 'pre-wrap',
    verticalAlign: 'top',
  } as const;
  const value = (v: unknown) =>
    v === null || v === undefined ? (
      <Box component="span" sx={{ color: 'text.secondary', fontStyle: 'italic' }}>
        {t('stateHistory.none')}
      </Box>
    ) : typeof v === 'string' ? (
      v
    ) : (
      JSON.stringify(v)
    );
  return (
    <Table size="small" aria-label={label} sx={{ tableLayout: 'fixed', width: '100%' }}>
      <TableHead>
        <TableRow>
          <TableCell sx={{ width: '30%' }}>{nameColumn}</TableCell>
          <TableCell sx={{ width: '35%' }}>{t('stateHistory.before')}</TableCell>
          <TableCell sx={{ width: '35%' }}>{t('stateHistory.after')}</TableCell>
        </TableRow>
      </TableHead>
      <TableBody>
        {changes.map((c) => (
          <TableRow key={c.path}>
            <TableCell component="th" scope="row" sx={cell}>
              <DottedPath path={c.path} />
            </TableCell>
            <TableCell sx={cell}>{value(c.before)}</TableCell>
            <TableCell sx={cell}>{value(c.after)}</TableCell>
          </TableRow>
        ))}
      </TableBody>
    </Table>
  );
}
