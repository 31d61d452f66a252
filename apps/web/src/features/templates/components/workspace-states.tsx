import {
  Alert,
  Box,
  Button,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  Link as MuiLink,
  Stack,
  Table,
  TableBody,
  TableCell,
  TableContainer,
  TableHead,
  TableRow,
  Tooltip,
  Typography,
} from '@mui/material';
import { isFinished, type PlanConfirmation, type PlanSummary } from '@gantry/contracts';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { CodeEditor } from '../../../components/code-editor';
import { VisuallyHidden } from '../../../components/visually-hidden';
import { TaskStatus } from '../../../components/tasks/task-status';
import { useTaskHref } from '../../../components/tasks/task-table';
import { errorText } from '../../../lib/error-text';
import { formatDateTime } from '../../../lib/format';
import { realtime } from '../../../lib/realtime';
import { stateVersionQuery, stateVersionsQuery } from '../api/workspaces-api';
import { DownloadStateButton, StateVersionsToolbar } from './state-versions-toolbar';

/** The stored state versions of one workspace, newest first; each opens its redacted state. Reloads when a task of the template ends. */
export function WorkspaceStates({
  projectId,
  templateId,
  inventoryId,
  name,
}: {
  projectId: number;
  templateId: number;
  inventoryId: number;
  name: string;
}) {
  const { t } = useTranslation();
  const href = useTaskHref();
  const qc = useQueryClient();
  const versions = useQuery(stateVersionsQuery(projectId, inventoryId));
  useEffect(
    () =>
      realtime.subscribe((m) => {
        if (
          m.type !== 'update' ||
          m.project_id !== projectId ||
          m.template_id !== templateId ||
          !m.status ||
          !isFinished(m.status)
        )
          return;
        void qc.invalidateQueries({ queryKey: stateVersionsQuery(projectId, inventoryId).queryKey });
      }),
    [qc, projectId, templateId, inventoryId],
  );
  const [open, setOpen] = useState<number | null>(null);
  if (versions.isError) return <Alert severity="error">{errorText(versions.error)}</Alert>;
  if (!versions.data) return null;
  return (
    <Stack spacing={1}>
      <StateVersionsToolbar
        projectId={projectId}
        inventoryId={inventoryId}
        title={t('workspaces.statesOf', { name })}
        versions={versions.data}
      />
      {versions.data.length === 0 ? (
        <Alert severity="info">{t('templates.noState')}</Alert>
      ) : (
        // On a phone the table scrolls sideways inside its frame, not the page.
        <TableContainer sx={{ maxWidth: 800 }}>
          <Table size="small" aria-label={t('workspaces.states')}>
            <TableHead>
              <TableRow>
                <TableCell>{t('workspaces.created')}</TableCell>
                <TableCell>{t('tasks.task')}</TableCell>
                <TableCell>{t('tasks.status')}</TableCell>
                <TableCell align="right">{t('terraformBackend.serial')}</TableCell>
                <TableCell align="right">{t('terraformBackend.resources')}</TableCell>
                <TableCell>
                  <VisuallyHidden>{t('common.actions')}</VisuallyHidden>
                </TableCell>
              </TableRow>
            </TableHead>
            <TableBody>
              {versions.data.map((v) => (
                <TableRow key={v.id}>
                  <TableCell sx={{ whiteSpace: 'nowrap' }}>{formatDateTime(v.created)}</TableCell>
                  <TableCell>
                    {v.task_id ? (
                      <MuiLink component={Link} to={href(v.task_id)} underline="hover">
                        #{v.task_id}
                      </MuiLink>
                    ) : v.alias_hint ? (
                      t('terraformBackend.viaAlias', { hint: v.alias_hint })
                    ) : null}
                    {v.confirmed_by ? <ConfirmedBy confirmation={v.confirmed_by} /> : null}
                  </TableCell>
                  <TableCell>
                    {/* The plan that made this version, under the status of the task that applied it. */}
                    <Stack spacing={0.5} sx={{ alignItems: 'flex-start' }}>
                      {v.status ? <TaskStatus status={v.status} /> : null}
                      {v.plan_summary ? <PlanChips summary={v.plan_summary} /> : null}
                    </Stack>
                  </TableCell>
                  <TableCell align="right">{v.serial ?? ''}</TableCell>
                  <TableCell align="right">{v.resource_count ?? ''}</TableCell>
                  <TableCell align="right" sx={{ whiteSpace: 'nowrap' }}>
                    <DownloadStateButton projectId={projectId} inventoryId={inventoryId} stateId={v.id} />
                    <Button size="small" onClick={() => setOpen(v.id)}>
                      {t('workspaces.viewState')}
                    </Button>
                  </TableCell>
                </TableRow>
              ))}
            </TableBody>
          </Table>
        </TableContainer>
      )}
      {open !== null ? (
        <StateDialog projectId={projectId} inventoryId={inventoryId} stateId={open} onClose={() => setOpen(null)} />
      ) : null}
    </Stack>
  );
}

/** Terraform's signs for the four plan actions, as `terraform plan` prints them. */
const SIGNS = [
  ['create', '+'],
  ['update', '~'],
  ['replace', '±'],
  ['destroy', '-'],
] as const;

/**
 * The plan that produced a version as compact counts ("+1 ~2 ±0 -1"); the sentence behind them is
 * the tooltip and what a screen reader reads. Focusable, so the tooltip opens from the keyboard too.
 */
function PlanChips({ summary }: { summary: PlanSummary }) {
  const { t } = useTranslation();
  const text = t('stateHistory.planCounts', {
    create: summary.create,
    update: summary.update,
    replace: summary.replace,
    destroy: summary.destroy,
  });
  const colors = { create: 'success.main', update: 'info.main', replace: 'warning.main', destroy: 'error.main' };
  return (
    <Tooltip title={text}>
      <Box
        component="span"
        role="img"
        tabIndex={0}
        aria-label={text}
        data-testid="state-plan-counts"
        sx={{ display: 'inline-flex', gap: '3px', whiteSpace: 'nowrap', fontFamily: 'monospace', fontSize: 12 }}
      >
        {SIGNS.map(([action, sign]) => (
          <Box
            key={action}
            component="span"
            aria-hidden
            sx={{
              px: '3px',
              borderRadius: 1,
              border: 1,
              borderColor: summary[action] ? colors[action] : 'divider',
              color: summary[action] ? 'text.primary' : 'text.secondary',
              fontWeight: summary[action] ? 600 : 400,
            }}
          >
            {sign}
            {summary[action]}
          </Box>
        ))}
      </Box>
    </Tooltip>
  );
}

/** "Confirmed by <name>" under the task that applied a confirmed plan; when is the tooltip. */
function ConfirmedBy({ confirmation }: { confirmation: PlanConfirmation }) {
  const { t } = useTranslation();
  const name = confirmation.user_name ?? t('stateHistory.deletedUser');
  return (
    <Tooltip describeChild title={t('stateHistory.confirmedAt', { at: formatDateTime(confirmation.at) })}>
      <Typography
        variant="caption"
        component="div"
        tabIndex={0}
        data-testid="state-confirmed-by"
        sx={{ color: 'text.secondary', display: 'block', minWidth: 90 }}
      >
        {t('stateHistory.confirmedBy', { name })}
      </Typography>
    </Tooltip>
  );
}

/** One state version's JSON, sensitive values already replaced by the server; read only. */
function StateDialog({
  projectId,
  inventoryId,
  stateId,
  onClose,
}: {
  projectId: number;
  inventoryId: number;
  stateId: number;
  onClose(): void;
}) {
  const { t } = useTranslation();
  const q = useQuery(stateVersionQuery(projectId, inventoryId, stateId));
  return (
    <Dialog open onClose={onClose} maxWidth="md" fullWidth>
      <DialogTitle>{t('workspaces.stateTitle', { id: stateId })}</DialogTitle>
      <DialogContent>
        {q.isError ? <Alert severity="info">{t('templates.noState')}</Alert> : null}
        {q.data ? (
          <CodeEditor label={t('workspaces.state')} value={q.data.state} language="json" readOnly minHeight={300} />
        ) : null}
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>{t('common.close')}</Button>
      </DialogActions>
    </Dialog>
  );
}
