import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { EmptyState } from '../../components/empty-state';
import { PagedTable } from '../../components/paged-table';
import { formatDateTime } from '../../lib/format';
import { projectQueries } from '../../lib/project-queries';

/** The project's activity: time, user, description, newest first. */
export function ActivityList({ projectId }: { projectId: number }) {
  const { t } = useTranslation();
  const events = useQuery({ ...projectQueries.events(projectId), refetchOnMount: 'always' }).data;
  if (events && events.length === 0) return <EmptyState title={t('activity.none')} />;
  return (
    <PagedTable
      rows={events ?? []}
      label={t('activity.title')}
      rowKey={(e) => e.id}
      columns={[
        { key: 'time', header: t('activity.time'), width: 200, render: (e) => formatDateTime(e.created) },
        { key: 'user', header: t('activity.user'), width: 160, render: (e) => e.username ?? t('activity.system') },
        { key: 'description', header: t('activity.description'), render: (e) => e.description },
      ]}
    />
  );
}
