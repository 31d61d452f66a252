import AddIcon from '@mui/icons-material/Add';
import { Box, Button, Link as MuiLink, Stack } from '@mui/material';
import { authMethodOf, type Integration } from '@gantry/contracts';
import { useQuery } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { EmptyState } from '../../components/empty-state';
import { PageHeader } from '../../components/page-header';
import { QueryStates } from '../../components/query-states';
import { ResourceTable } from '../../components/resource-table';
import { useSafeDelete } from '../../components/use-safe-delete';
import { paths } from '../../lib/paths';
import { useProjectAccess, useProjectId } from '../../lib/project-access';
import { integrationKeys, integrationQueries } from './api/integrations-api';
import { AliasesPanel } from './components/aliases-panel';
import { startTargetPath } from '../schedules/components/start-target-fields';
import { IntegrationDialog } from './components/integration-dialog';

/** Spec 2: integrations are listed by name, then by template name. */
function byNameThenTemplate(a: Integration, b: Integration): number {
  return a.name.localeCompare(b.name) || a.tpl_name.localeCompare(b.tpl_name);
}

/** /project/{id}/integrations: the webhook receivers of the project and the project-level aliases. */
export function IntegrationsPage() {
  const { t } = useTranslation();
  const projectId = useProjectId();
  const { canUpdate } = useProjectAccess(projectId);
  const list = useQuery(integrationQueries.list(projectId));
  const rows = useMemo(() => [...(list.data ?? [])].sort(byNameThenTemplate), [list.data]);
  const [editing, setEditing] = useState<Integration | 'new' | null>(null);
  const del = useSafeDelete({
    projectId,
    object: t('integrations.object'),
    baseUrl: `/project/${projectId}/integrations`,
    invalidate: integrationKeys.list(projectId),
  });
  return (
    <Box>
      <PageHeader
        title={t('integrations.title')}
        actions={
          canUpdate ? (
            <Button variant="contained" startIcon={<AddIcon />} onClick={() => setEditing('new')}>
              {t('integrations.new')}
            </Button>
          ) : null
        }
      />
      <Stack spacing={2}>
        {rows.length ? (
          <ResourceTable<Integration>
            tableId="integrations"
            label={t('integrations.title')}
            rows={rows}
            canManage={canUpdate}
            onEdit={setEditing}
            onDelete={(x) => void del.request(x)}
            renderName={(x) => (
              <MuiLink
                component={Link}
                to={paths.integration(projectId, x.id)}
                underline="hover"
                sx={{ fontWeight: 500 }}
              >
                {x.name}
              </MuiLink>
            )}
            columns={[
              {
                key: 'template',
                header: t('startTarget.runs'),
                // tpl_name is the workflow's name for an integration that starts a workflow.
                render: (x) => (
                  <MuiLink component={Link} to={startTargetPath(projectId, x)}>
                    {x.tpl_name}
                  </MuiLink>
                ),
              },
              {
                key: 'auth',
                header: t('integrations.authMethod'),
                render: (x) => t(`integrations.authMethods.${authMethodOf(x.auth_method)}`),
              },
            ]}
          />
        ) : (
          <QueryStates
            query={list}
            empty={
              <EmptyState
                title={t('integrations.none')}
                hint={t('integrations.noneHint')}
                action={
                  canUpdate ? (
                    <Button variant="outlined" onClick={() => setEditing('new')}>
                      {t('integrations.createFirst')}
                    </Button>
                  ) : null
                }
              />
            }
          />
        )}
        <AliasesPanel
          projectId={projectId}
          integrationId={null}
          canUpdate={canUpdate}
          title={t('integrations.projectAliases')}
          hint={t('integrations.projectAliasesHint')}
        />
      </Stack>
      {editing ? (
        <IntegrationDialog
          projectId={projectId}
          item={editing === 'new' ? null : editing}
          onClose={() => setEditing(null)}
        />
      ) : null}
      {del.dialogs}
    </Box>
  );
}
