import DeleteIcon from '@mui/icons-material/DeleteOutlined';
import EditIcon from '@mui/icons-material/EditOutlined';
import { Box, IconButton, Link as MuiLink, Switch } from '@mui/material';
import type { Schedule } from '@gantry/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { PagedTable } from '../../../components/paged-table';
import { useSnackbar } from '../../../components/snackbar';
import { api } from '../../../lib/api-client';
import { errorText } from '../../../lib/error-text';
import { startTargetPath } from './start-target-fields';

/** Schedules with the active switch (applied at once), cron and template. */
export function ScheduleTable({
  projectId,
  rows,
  canManage,
  onEdit,
  onDelete,
  pageSize,
}: {
  projectId: number;
  rows: Schedule[];
  canManage: boolean;
  onEdit(s: Schedule): void;
  onDelete(s: Schedule): void;
  pageSize?: number;
}) {
  const { t } = useTranslation();
  const qc = useQueryClient();
  const snackbar = useSnackbar();
  // Every cached schedule list of the project (the page's and each template's).
  const lists = { queryKey: ['project', projectId, 'schedules'] };
  // The switch moves at once; a failure puts it back and says why.
  const toggle = useMutation({
    mutationFn: (s: Schedule) => api.put(`/project/${projectId}/schedules/${s.id}/active`, { active: !s.active }),
    onMutate: async (s) => {
      await qc.cancelQueries(lists);
      const before = qc.getQueriesData<Schedule[]>(lists);
      qc.setQueriesData<Schedule[]>(lists, (list) =>
        Array.isArray(list) ? list.map((x) => (x.id === s.id ? { ...x, active: !s.active } : x)) : list,
      );
      return { before };
    },
    onError: (e, _s, context) => {
      context?.before.forEach(([key, data]) => qc.setQueryData(key, data));
      snackbar.error(errorText(e));
    },
    onSettled: () => qc.invalidateQueries(lists),
  });
  return (
    <PagedTable<Schedule>
      rows={rows}
      pageSize={pageSize}
      paged={!!pageSize}
      rowKey={(s) => s.id}
      label={t('schedules.title')}
      columns={[
        {
          key: 'active',
          header: t('schedules.active'),
          render: (s) => (
            <Switch
              size="small"
              checked={s.active}
              disabled={!canManage}
              onChange={() => toggle.mutate(s)}
              slotProps={{ input: { 'aria-label': t('schedules.activeNamed', { name: s.name }) } }}
            />
          ),
        },
        { key: 'name', header: t('common.name'), render: (s) => s.name },
        { key: 'cron', header: t('schedules.cronUtc'), render: (s) => <code>{s.cron_format}</code> },
        {
          key: 'type',
          header: t('terraformPlans.scheduleType'),
          render: (s) =>
            s.type === 'drift_check'
              ? s.task_params?.refresh_only
                ? t('terraformPlans.scheduleTypes.drift_check_refresh')
                : t('terraformPlans.scheduleTypes.drift_check')
              : s.repository_id
                ? t('terraformPlans.scheduleTypes.on_commit')
                : t('terraformPlans.scheduleTypes.run'),
        },
        // tpl_name is the workflow's name for a workflow's schedule.
        {
          key: 'template',
          header: t('startTarget.runs'),
          render: (s) => (
            <MuiLink component={Link} to={startTargetPath(projectId, s)}>
              {s.tpl_name}
            </MuiLink>
          ),
        },
        {
          key: 'actions',
          header: '',
          align: 'right',
          render: (s) =>
            canManage ? (
              <Box sx={{ whiteSpace: 'nowrap' }}>
                <IconButton size="small" aria-label={t('common.editNamed', { name: s.name })} onClick={() => onEdit(s)}>
                  <EditIcon fontSize="small" />
                </IconButton>
                <IconButton
                  size="small"
                  aria-label={t('common.deleteNamed', { name: s.name })}
                  onClick={() => onDelete(s)}
                >
                  <DeleteIcon fontSize="small" />
                </IconButton>
              </Box>
            ) : null,
        },
      ]}
    />
  );
}
