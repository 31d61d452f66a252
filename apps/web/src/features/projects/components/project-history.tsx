import HistoryIcon from '@mui/icons-material/History';
import { useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { EmptyState } from '../../../components/empty-state';
import { TaskTable } from '../../../components/tasks/task-table';
import { useLiveTasks } from '../../../components/tasks/use-live-tasks';
import { projectKeys, projectQueries } from '../../../lib/project-queries';

/** Recent tasks of the project (the last 100), kept live by the socket. */
export function ProjectHistory({ projectId }: { projectId: number }) {
  const { t } = useTranslation();
  const key = useMemo(() => projectKeys.tasks(projectId), [projectId]);
  const query = useQuery(projectQueries.history(projectId));
  useLiveTasks(key, projectId);
  const empty = <EmptyState icon={<HistoryIcon sx={{ fontSize: 48, mb: 1 }} />} title={t('projects.noTasks')} hint={t('projects.noTasksHint')} />;
  return <TaskTable tasks={query.data ?? []} query={query} empty={empty} />;
}
