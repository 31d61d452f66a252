import { Box, Button, Link as MuiLink } from '@mui/material';
import { TASKS_REFRESH_MS, type ActiveTask } from '@gantry/contracts';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { EmptyState } from '../../components/empty-state';
import { PageHeader } from '../../components/page-header';
import { QueryStates } from '../../components/query-states';
import { PagedTable } from '../../components/paged-table';
import { useSnackbar } from '../../components/snackbar';
import { TaskStatus } from '../../components/tasks/task-status';
import { api } from '../../lib/api-client';
import { errorText } from '../../lib/error-text';
import { useCurrentUser } from '../../lib/session';
import { activeTasksQuery } from './api/tasks-api';

/** /tasks (admin): every waiting or running task, where it runs; refreshed every 10 s. */
export function ActiveTasksPage() {
  const { t } = useTranslation();
  const me = useCurrentUser();
  const snackbar = useSnackbar();
  const query = useQuery({ ...activeTasksQuery, refetchInterval: TASKS_REFRESH_MS, enabled: me.admin });
  const { data = [], refetch } = query;
  if (!me.admin) return null;
  const stop = (x: ActiveTask) =>
    api.post(`/project/${x.project_id}/tasks/${x.task_id}/stop`, { force: x.status === 'stopping' }).then(() => refetch(), (e: unknown) => snackbar.error(errorText(e)));
  return (
    <Box>
      <PageHeader title={t('tasks.activeTitle')} />
      {data.length === 0 ? (
        <QueryStates query={query} empty={<EmptyState title={t('tasks.noActive')} hint={t('tasks.noActiveHint')} />} />
      ) : (
        <PagedTable<ActiveTask>
          rows={data}
          rowKey={(x) => x.task_id}
          label={t('tasks.activeTitle')}
          columns={[
            { key: 'task', header: t('tasks.task'), render: (x) => <MuiLink component={Link} to={`/project/${x.project_id}/history?t=${x.task_id}`}>#{x.task_id}</MuiLink> },
            { key: 'project', header: t('tasks.project'), render: (x) => <MuiLink component={Link} to={`/project/${x.project_id}/history`}>#{x.project_id}</MuiLink> },
            { key: 'user', header: t('tasks.user'), render: (x) => x.username ?? '' },
            { key: 'status', header: t('tasks.status'), render: (x) => <TaskStatus status={x.status} /> },
            {
              key: 'location',
              header: t('tasks.location'),
              render: (x) => (x.location === 'queue' ? t('tasks.locationQueue') : x.runner_name !== null ? t('tasks.locationRunner', { name: x.runner_name }) : t('tasks.locationRunning')),
            },
            {
              key: 'stop',
              header: '',
              render: (x) => (
                <Button size="small" color="error" onClick={() => void stop(x)} aria-label={t('tasks.stopNamed', { id: x.task_id })}>
                  {x.status === 'stopping' ? t('tasks.forceStop') : t('tasks.stop')}
                </Button>
              ),
            },
          ]}
        />
      )}
    </Box>
  );
}
