import AddIcon from '@mui/icons-material/Add';
import CleaningIcon from '@mui/icons-material/CleaningServicesOutlined';
import DeleteIcon from '@mui/icons-material/DeleteOutlined';
import EditIcon from '@mui/icons-material/EditOutlined';
import { Box, Button, Chip, IconButton, Switch, Tooltip, Typography } from '@mui/material';
import { RUNNER_ACTIVE_MS, RUNNER_IDLE_MS, type Runner, type RunnerCreated } from '@gantry/contracts';
import { useQuery } from '@tanstack/react-query';
import { useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { ConfirmDialog } from '../../../components/confirm-dialog';
import { EmptyState } from '../../../components/empty-state';
import { PagedTable, type Column } from '../../../components/paged-table';
import { useSnackbar } from '../../../components/snackbar';
import { errorText } from '../../../lib/error-text';
import { formatDateTime } from '../../../lib/format';
import { runnersQuery, useClearRunnerCache, useDeleteRunner, useSetRunnerActive } from '../api/runners-api';
import { RunnerCreatedDialog } from './runner-created-dialog';
import { RunnerDialog } from './runner-dialog';

/** Spec colours by last contact: under 5 minutes success, under 1 hour warning, otherwise grey. */
export function activityColour(touched: string | null, now = Date.now()): 'success' | 'warning' | 'default' {
  if (!touched) return 'default';
  const age = now - Date.parse(touched);
  if (age < RUNNER_ACTIVE_MS) return 'success';
  if (age < RUNNER_IDLE_MS) return 'warning';
  return 'default';
}

/** The runners table with its dialogs; `projectId` null lists every runner (admin). */
export function RunnersList({ projectId, title }: { projectId: number | null; title: (actions: ReactNode) => ReactNode }) {
  const { t } = useTranslation();
  const snackbar = useSnackbar();
  const query = useQuery(runnersQuery(projectId));
  const runners = query.data ?? [];
  const setActive = useSetRunnerActive(projectId);
  const clearCache = useClearRunnerCache(projectId);
  const remove = useDeleteRunner(projectId);
  const [editing, setEditing] = useState<Runner | 'new' | null>(null);
  const [created, setCreated] = useState<RunnerCreated | null>(null);
  const [deleting, setDeleting] = useState<Runner | null>(null);

  const toggle = (r: Runner, active: boolean) =>
    setActive.mutate(
      { id: r.id, active },
      {
        onSuccess: () => snackbar.success(t(active ? 'runners.activated' : 'runners.deactivated', { name: r.name })),
        onError: (e) => snackbar.error(errorText(e)),
      },
    );
  const clear = (r: Runner) =>
    clearCache.mutate(r.id, {
      onSuccess: () => snackbar.success(t('runners.cacheClearRequested', { name: r.name })),
      onError: (e) => snackbar.error(t('runners.cacheClearFailed', { message: errorText(e) })),
    });
  const doDelete = (r: Runner) => {
    setDeleting(null);
    remove.mutate(r.id, { onSuccess: () => snackbar.success(t('runners.deleted', { name: r.name })), onError: (e) => snackbar.error(errorText(e)) });
  };

  const columns: Column<Runner>[] = [
    {
      key: 'active',
      header: t('runners.active'),
      width: 70,
      render: (r) => <Switch size="small" checked={r.active} onChange={(e) => toggle(r, e.target.checked)} slotProps={{ input: { 'aria-label': t('runners.activeNamed', { name: r.name }) } }} />,
    },
    { key: 'name', header: t('runners.name'), render: (r) => r.name },
    ...(projectId === null ? [{ key: 'project', header: t('runners.project'), render: (r: Runner) => (r.project_id === null ? t('runners.global') : `#${r.project_id}`) }] : []),
    {
      key: 'webhook',
      header: t('runners.webhook'),
      render: (r) => (
        <Typography variant="body2" sx={{ fontFamily: 'monospace', wordBreak: 'break-all' }}>
          {r.webhook || '—'}
        </Typography>
      ),
    },
    { key: 'tag', header: t('runners.tag'), render: (r) => (r.tag ? <Chip size="small" label={r.tag} /> : '—') },
    { key: 'parallel', header: t('runners.maxParallelTasks'), align: 'right', render: (r) => (r.max_parallel_tasks === 0 ? '∞' : r.max_parallel_tasks) },
    {
      key: 'activity',
      header: t('runners.activity'),
      render: (r) => (
        <Chip
          size="small"
          variant="outlined"
          color={activityColour(r.touched)}
          label={r.touched ? formatDateTime(r.touched) : t('runners.never')}
          data-testid={`runner-activity-${r.id}`}
        />
      ),
    },
    {
      key: 'actions',
      header: '',
      align: 'right',
      render: (r) => (
        <Box sx={{ whiteSpace: 'nowrap' }}>
          <Tooltip title={t('runners.clearCache')}>
            <IconButton size="small" aria-label={t('runners.clearCacheNamed', { name: r.name })} onClick={() => clear(r)}>
              <CleaningIcon fontSize="small" />
            </IconButton>
          </Tooltip>
          <Tooltip title={t('common.edit')}>
            <IconButton size="small" aria-label={t('common.editNamed', { name: r.name })} onClick={() => setEditing(r)}>
              <EditIcon fontSize="small" />
            </IconButton>
          </Tooltip>
          <Tooltip title={t('common.delete')}>
            <IconButton size="small" aria-label={t('common.deleteNamed', { name: r.name })} onClick={() => setDeleting(r)}>
              <DeleteIcon fontSize="small" />
            </IconButton>
          </Tooltip>
        </Box>
      ),
    },
  ];

  return (
    <Box>
      {title(
        <Button variant="contained" startIcon={<AddIcon />} onClick={() => setEditing('new')}>
          {t('runners.new')}
        </Button>,
      )}
      <PagedTable
        rows={runners}
        query={query}
        empty={<EmptyState title={t('runners.none')} hint={t('runners.noneHint')} action={<Button variant="outlined" onClick={() => setEditing('new')}>{t('runners.createFirst')}</Button>} />}
        columns={columns}
        rowKey={(r) => r.id}
        label={t('runners.title')}
      />
      {editing !== null ? <RunnerDialog projectId={projectId} runner={editing === 'new' ? null : editing} onClose={() => setEditing(null)} onCreated={setCreated} /> : null}
      {created ? <RunnerCreatedDialog runner={created} onClose={() => setCreated(null)} /> : null}
      <ConfirmDialog
        open={!!deleting}
        title={t('common.confirmDeleteTitle', { object: t('runners.object') })}
        text={t('common.confirmDeleteText', { name: deleting?.name ?? '' })}
        onConfirm={() => deleting && doDelete(deleting)}
        onClose={() => setDeleting(null)}
      />
    </Box>
  );
}
