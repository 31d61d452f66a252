import AddIcon from '@mui/icons-material/Add';
import { Box, Button } from '@mui/material';
import type { Environment } from '@gantry/contracts';
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
import { EnvironmentDialog } from './components/environment-dialog';

const count = (text: string) => {
  try {
    return Object.keys(JSON.parse(text) as object).length;
  } catch {
    return 0;
  }
};

/** /project/{id}/environment: variable groups. */
export function EnvironmentsPage() {
  const { t } = useTranslation();
  const projectId = useProjectId();
  const { canManage } = useProjectAccess(projectId);
  const query = useQuery(projectQueries.environments(projectId));
  const envs = query.data ?? [];
  const [editing, setEditing] = useState<Environment | 'new' | null>(null);
  const del = useSafeDelete({ projectId, object: t('environments.object'), baseUrl: `/project/${projectId}/environment`, invalidate: projectKeys.environments(projectId) });
  return (
    <Box>
      <PageHeader
        title={t('environments.title')}
        actions={canManage ? <Button variant="contained" startIcon={<AddIcon />} onClick={() => setEditing('new')}>{t('environments.new')}</Button> : null}
      />
      {envs.length ? (
        <ResourceTable<Environment>
          tableId="environments"
          label={t('environments.title')}
          rows={envs}
          canManage={canManage}
          onEdit={setEditing}
          onDelete={(x) => void del.request(x)}
          columns={[
            { key: 'vars', header: t('environments.extraVars'), render: (x) => count(x.json) },
            { key: 'env', header: t('environments.envVars'), render: (x) => count(x.env) },
            { key: 'secrets', header: t('environments.secrets'), render: (x) => x.secrets.length },
          ]}
        />
      ) : (
        <QueryStates
          query={query}
          empty={
            <EmptyState
              title={t('environments.none')}
              hint={t('environments.noneHint')}
              action={canManage ? <Button variant="outlined" onClick={() => setEditing('new')}>{t('environments.createFirst')}</Button> : null}
            />
          }
        />
      )}
      {editing ? <EnvironmentDialog projectId={projectId} item={editing === 'new' ? null : editing} onClose={() => setEditing(null)} /> : null}
      {del.dialogs}
    </Box>
  );
}
