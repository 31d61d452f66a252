import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { EmptyState } from '../../components/empty-state';
import { PagedTable } from '../../components/paged-table';
import { formatDateTime } from '../../lib/format';
import { projectQueries } from '../../lib/project-queries';

/** The project's activity: time, user, description, newest first. */
export function ActivityList({ projectId }: { projectId: number }) {
  const { t } = useTranslation();
  const query = useQuery({ ...projectQueries.events(projectId), refetchOnMount: 'always' });
  return (
    <PagedTable
      rows={query.data ?? []}
      query={query}
      empty={<EmptyState title={t('activity.none')} hint={t('activity.noneHint')} />}
      label={t('activity.title')}
      rowKey={(e) => e.id}
      columns={[
        { key: 'time', header: t('activity.time'), nowrap: true, render: (e) => formatDateTime(e.created) },
        { key: 'user', header: t('activity.user'), width: 160, render: (e) => e.username ?? t('activity.system') },
        { key: 'description', header: t('activity.description'), render: (e) => e.description },
      ]}
    />
  );
}
