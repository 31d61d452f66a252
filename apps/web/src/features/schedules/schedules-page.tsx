import AddIcon from '@mui/icons-material/Add';
import { Box, Button } from '@mui/material';
import type { Schedule } from '@gantry/contracts';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { EmptyState } from '../../components/empty-state';
import { PageHeader } from '../../components/page-header';
import { QueryStates } from '../../components/query-states';
import { useSafeDelete } from '../../components/use-safe-delete';
import { api } from '../../lib/api-client';
import { useProjectAccess, useProjectId } from '../../lib/project-access';
import { ScheduleDialog } from './components/schedule-dialog';
import { ScheduleTable } from './components/schedule-table';

/** /project/{id}/schedules (also /schedule). */
export function SchedulesPage() {
  const { t } = useTranslation();
  const projectId = useProjectId();
  const { canManage } = useProjectAccess(projectId);
  const key = ['project', projectId, 'schedules'] as const;
  const query = useQuery({ queryKey: key, queryFn: () => api.get<Schedule[]>(`/project/${projectId}/schedules`) });
  const schedules = query.data ?? [];
  const [editing, setEditing] = useState<Schedule | 'new' | null>(null);
  const del = useSafeDelete({ projectId, object: t('schedules.object'), baseUrl: `/project/${projectId}/schedules`, invalidate: key });
  return (
    <Box>
      <PageHeader title={t('schedules.title')} actions={canManage ? <Button variant="contained" startIcon={<AddIcon />} onClick={() => setEditing('new')}>{t('schedules.new')}</Button> : null} />
      {schedules.length ? (
        <ScheduleTable projectId={projectId} rows={schedules} canManage={canManage} onEdit={setEditing} onDelete={(s) => void del.request(s)} />
      ) : (
        <QueryStates
          query={query}
          empty={
            <EmptyState
              title={t('schedules.none')}
              hint={t('schedules.noneHint')}
              action={canManage ? <Button variant="outlined" onClick={() => setEditing('new')}>{t('schedules.createFirst')}</Button> : null}
            />
          }
        />
      )}
      {editing ? <ScheduleDialog projectId={projectId} item={editing === 'new' ? null : editing} onClose={() => setEditing(null)} /> : null}
      {del.dialogs}
    </Box>
  );
}
