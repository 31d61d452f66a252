import ArrowBackIcon from '@mui/icons-material/ArrowBack';
import DeleteIcon from '@mui/icons-material/DeleteOutlined';
import EditIcon from '@mui/icons-material/EditOutlined';
import { Box, Chip, IconButton, Link as MuiLink, Stack, Tooltip, Typography } from '@mui/material';
import { authMethodOf } from '@gantry/contracts';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate, useParams } from 'react-router';
import { EmptyState } from '../../components/empty-state';
import { PageSkeleton, QueryStates } from '../../components/query-states';
import { useSafeDelete } from '../../components/use-safe-delete';
import { errorText } from '../../lib/error-text';
import { paths } from '../../lib/paths';
import { useProjectAccess, useProjectId } from '../../lib/project-access';
import { integrationKeys, integrationQueries } from './api/integrations-api';
import { AliasesPanel } from './components/aliases-panel';
import { startTargetPath } from '../schedules/components/start-target-fields';
import { HowItWorks } from './components/how-it-works';
import { IntegrationDialog } from './components/integration-dialog';
import { MatchersSection } from './components/matchers-section';
import { ValuesSection } from './components/values-section';

/** /project/{id}/integrations/{integrationId}: one integration with its aliases, matchers and extracted values. */
export function IntegrationPage() {
  const { t } = useTranslation();
  const projectId = useProjectId();
  const integrationId = Number(useParams().integrationId);
  const navigate = useNavigate();
  const { canUpdate } = useProjectAccess(projectId);
  const query = useQuery(integrationQueries.one(projectId, integrationId));
  const [editing, setEditing] = useState(false);
  const del = useSafeDelete({
    projectId,
    object: t('integrations.object'),
    baseUrl: `/project/${projectId}/integrations`,
    invalidate: integrationKeys.list(projectId),
    onDeleted: () => void navigate(paths.integrations(projectId)),
  });
  const integration = query.data;
  const back = (
    <MuiLink
      component={Link}
      to={paths.integrations(projectId)}
      underline="hover"
      variant="body2"
      sx={{ display: 'inline-flex', alignItems: 'center', gap: 0.5, mb: 0.5 }}
    >
      <ArrowBackIcon sx={{ fontSize: 16 }} />
      {t('integrations.title')}
    </MuiLink>
  );
  if (!integration) {
    const notFound = <EmptyState heading title={t('integrations.notFound')} hint={errorText(query.error)} />;
    return (
      <Box>
        {back}
        <QueryStates query={query} loading={<PageSkeleton />} notFound={notFound} />
      </Box>
    );
  }
  return (
    <Box>
      {back}
      <Stack direction="row" spacing={1} sx={{ alignItems: 'center', mb: 1 }}>
        <Typography
          variant="h5"
          component="h1"
          sx={{ fontWeight: 600, flexGrow: 1, minWidth: 0, overflowWrap: 'anywhere' }}
        >
          {integration.name}
        </Typography>
        {canUpdate ? (
          <>
            <Tooltip title={t('common.edit')}>
              <IconButton aria-label={t('integrations.edit')} onClick={() => setEditing(true)}>
                <EditIcon />
              </IconButton>
            </Tooltip>
            <Tooltip title={t('common.delete')}>
              <IconButton aria-label={t('integrations.delete')} onClick={() => void del.request(integration)}>
                <DeleteIcon />
              </IconButton>
            </Tooltip>
          </>
        ) : null}
      </Stack>
      <Stack
        direction="row"
        spacing={1}
        useFlexGap
        sx={{ alignItems: 'center', flexWrap: 'wrap', mb: 2, color: 'text.secondary' }}
        data-testid="integration-summary"
      >
        <Typography variant="body2">
          {t(integration.workflow_id ? 'integrations.runsWorkflow' : 'integrations.runs')}
        </Typography>
        <MuiLink component={Link} to={startTargetPath(projectId, integration)} variant="body2">
          {integration.tpl_name}
        </MuiLink>
        <Chip
          size="small"
          variant="outlined"
          label={t('integrations.authChip', {
            method: t(`integrations.authMethods.${authMethodOf(integration.auth_method)}`),
          })}
        />
        {integration.searchable ? (
          <Chip size="small" variant="outlined" color="primary" label={t('integrations.searchableChip')} />
        ) : null}
      </Stack>
      <Stack spacing={3}>
        <HowItWorks
          authMethod={authMethodOf(integration.auth_method)}
          templateName={integration.tpl_name}
          workflow={!!integration.workflow_id}
        />
        <AliasesPanel
          projectId={projectId}
          integrationId={integration.id}
          canUpdate={canUpdate}
          title={t('integrations.aliases')}
          hint={t('integrations.aliasesHint')}
        />
        <MatchersSection projectId={projectId} integrationId={integration.id} canUpdate={canUpdate} />
        <ValuesSection projectId={projectId} integrationId={integration.id} canUpdate={canUpdate} />
      </Stack>
      {editing ? (
        <IntegrationDialog projectId={projectId} item={integration} onClose={() => setEditing(false)} />
      ) : null}
      {del.dialogs}
    </Box>
  );
}
