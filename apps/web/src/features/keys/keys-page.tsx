import AddIcon from '@mui/icons-material/Add';
import { Box, Button, Chip } from '@mui/material';
import type { AccessKey } from '@gantry/contracts';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { EmptyState } from '../../components/empty-state';
import { PageHeader } from '../../components/page-header';
import { QueryStates } from '../../components/query-states';
import { ResourceTable } from '../../components/resource-table';
import { useSafeDelete } from '../../components/use-safe-delete';
import { useProjectAccess, useProjectId } from '../../lib/project-access';
import { projectKeys, projectQueries } from '../../lib/project-queries';
import { KeyDialog } from './components/key-dialog';

/** /project/{id}/keys: credentials; an empty secret shows an "empty" badge. */
export function KeysPage() {
  const { t } = useTranslation();
  const projectId = useProjectId();
  const { canManage } = useProjectAccess(projectId);
  const query = useQuery(projectQueries.keys(projectId));
  const keys = query.data ?? [];
  const [editing, setEditing] = useState<AccessKey | 'new' | null>(null);
  const del = useSafeDelete({ projectId, object: t('keys.object'), baseUrl: `/project/${projectId}/keys`, invalidate: projectKeys.keys(projectId) });
  return (
    <Box>
      <PageHeader
        title={t('keys.title')}
        actions={canManage ? <Button variant="contained" startIcon={<AddIcon />} onClick={() => setEditing('new')}>{t('keys.new')}</Button> : null}
      />
      {keys.length ? (
        <ResourceTable<AccessKey>
          tableId="keys"
          label={t('keys.title')}
          rows={keys}
          canManage={canManage}
          onEdit={setEditing}
          onDelete={(k) => void del.request(k)}
          columns={[
            {
              key: 'type',
              header: t('keys.type'),
              render: (k) => (
                <>
                  {t(`keys.types.${k.type}`)}
                  {k.empty ? <Chip size="small" label={t('keys.empty')} color="warning" variant="outlined" sx={{ ml: 1 }} /> : null}
                </>
              ),
            },
          ]}
        />
      ) : (
        <QueryStates
          query={query}
          empty={
            <EmptyState
              title={t('keys.none')}
              hint={t('keys.noneHint')}
              action={canManage ? <Button variant="outlined" onClick={() => setEditing('new')}>{t('keys.createFirst')}</Button> : null}
            />
          }
        />
      )}
      {editing ? <KeyDialog projectId={projectId} item={editing === 'new' ? null : editing} onClose={() => setEditing(null)} /> : null}
      {del.dialogs}
    </Box>
  );
}
