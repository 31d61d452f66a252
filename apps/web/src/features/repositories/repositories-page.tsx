import AddIcon from '@mui/icons-material/Add';
import { Box, Button } from '@mui/material';
import { isLocalGitUrl, type Repository } from '@gantry/contracts';
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
import { RepositoryDialog } from './components/repository-dialog';

/** /project/{id}/repositories: URL, branch (not for local paths) and key of each. */
export function RepositoriesPage() {
  const { t } = useTranslation();
  const projectId = useProjectId();
  const { canManage } = useProjectAccess(projectId);
  const query = useQuery(projectQueries.repositories(projectId));
  const repos = query.data ?? [];
  const keys = useQuery(projectQueries.keys(projectId)).data ?? [];
  const [editing, setEditing] = useState<Repository | 'new' | null>(null);
  const del = useSafeDelete({ projectId, object: t('repositories.object'), baseUrl: `/project/${projectId}/repositories`, invalidate: projectKeys.repositories(projectId) });
  return (
    <Box>
      <PageHeader
        title={t('repositories.title')}
        actions={canManage ? <Button variant="contained" startIcon={<AddIcon />} onClick={() => setEditing('new')}>{t('repositories.new')}</Button> : null}
      />
      {repos.length ? (
        <ResourceTable<Repository>
          tableId="repositories"
          label={t('repositories.title')}
          rows={repos}
          canManage={canManage}
          onEdit={setEditing}
          onDelete={(r) => void del.request(r)}
          columns={[
            { key: 'url', header: t('repositories.url'), render: (r) => <code>{r.git_url}</code> },
            { key: 'branch', header: t('repositories.branch'), render: (r) => (isLocalGitUrl(r.git_url) ? '' : r.git_branch) },
            { key: 'key', header: t('repositories.key'), render: (r) => keys.find((k) => k.id === r.ssh_key_id)?.name ?? '' },
          ]}
        />
      ) : (
        <QueryStates
          query={query}
          empty={
            <EmptyState
              title={t('repositories.none')}
              hint={t('repositories.noneHint')}
              action={canManage ? <Button variant="outlined" onClick={() => setEditing('new')}>{t('repositories.createFirst')}</Button> : null}
            />
          }
        />
      )}
      {editing ? <RepositoryDialog projectId={projectId} item={editing === 'new' ? null : editing} keys={keys} onClose={() => setEditing(null)} /> : null}
      {del.dialogs}
    </Box>
  );
}
