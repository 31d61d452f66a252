import HistoryIcon from '@mui/icons-material/History';
import { TextField } from '@mui/material';
import type { Task } from '@gantry/contracts';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { EmptyState } from '../../../components/empty-state';
import { TaskTable } from '../../../components/tasks/task-table';
import { useLiveTasks } from '../../../components/tasks/use-live-tasks';
import { api } from '../../../lib/api-client';
import { projectKeys } from '../../../lib/project-queries';

/**
 * Recent tasks of the project (the last 100), kept live by the socket; `?host=` shows only the
 * tasks whose Ansible PLAY RECAP lists that host (the Hosts page links here).
 */
export function ProjectHistory({ projectId }: { projectId: number }) {
  const { t } = useTranslation();
  const [params, setParams] = useSearchParams();
  const host = params.get('host') ?? '';
  const [draft, setDraft] = useState(host);
  useEffect(() => setDraft(host), [host]);
  // Typed names apply after a pause, not on every key.
  useEffect(() => {
    if (draft.trim() === host) return;
    const timer = setTimeout(() => {
      setParams(
        (q) => {
          const next = new URLSearchParams(q);
          if (draft.trim()) next.set('host', draft.trim());
          else next.delete('host');
          return next;
        },
        { replace: true },
      );
    }, 400);
    return () => clearTimeout(timer);
  }, [draft, host, setParams]);
  const key = useMemo(() => (host ? [...projectKeys.tasks(projectId), { host }] : projectKeys.tasks(projectId)), [projectId, host]);
  const query = useQuery({
    queryKey: key,
    // The same list as projectQueries.history (its key and URL), narrowed to the host when one is set.
    queryFn: () => api.get<Task[]>(`/project/${projectId}/tasks/last?limit=100${host ? `&host=${encodeURIComponent(host)}` : ''}`),
  });
  useLiveTasks(key, projectId);
  const empty = host ? (
    <EmptyState title={t('hosts.noHostTasks', { host })} />
  ) : (
    <EmptyState icon={<HistoryIcon sx={{ fontSize: 48, mb: 1 }} />} title={t('projects.noTasks')} hint={t('projects.noTasksHint')} />
  );
  return (
    <>
      <TextField
        size="small"
        label={t('hosts.hostFilter')}
        value={draft}
        onChange={(e) => setDraft(e.target.value)}
        sx={{ mb: 2, width: { xs: '100%', sm: 280 } }}
      />
      <TaskTable tasks={query.data ?? []} query={query} empty={empty} />
    </>
  );
}
