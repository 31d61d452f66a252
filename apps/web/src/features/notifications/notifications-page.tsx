import { Alert, AlertTitle, Box, Link as MuiLink, Stack } from '@mui/material';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { PageHeader } from '../../components/page-header';
import { paths } from '../../lib/paths';
import { useProjectAccess, useProjectId } from '../../lib/project-access';
import { useProjects } from '../../lib/session';
import { NotificationsView } from './components/notifications-view';

/**
 * /project/{id}/notifications: the project's destinations, rules and delivery log. Members read
 * them; those who may update the project change them.
 */
export function NotificationsPage() {
  const { t } = useTranslation();
  const projectId = useProjectId();
  // Not managed by `gantry apply`: a project managed by code keeps its notifications editable here.
  const { roleCanUpdate: canUpdate } = useProjectAccess(projectId);
  const project = useProjects().find((p) => p.id === projectId);
  return (
    <Box>
      <PageHeader title={t('notifications.title')} />
      <Stack spacing={2}>
        {/* The project's old alert switch keeps going to the server's channels, beside these rules. */}
        <Alert severity="info" variant="outlined" data-testid="legacy-alerts">
          <AlertTitle>{t('notifications.legacyTitle')}</AlertTitle>
          {t('notifications.legacyText')}{' '}
          <MuiLink component={Link} to={paths.settings(projectId)}>
            {t('notifications.legacyLink')}
          </MuiLink>
          {project && (
            <Box data-testid="legacy-alerts-state" sx={{ mt: 1 }}>
              {project.alert ? t('notifications.legacyOn') : t('notifications.legacyOff')}
              {project.alert && project.alert_chat
                ? ` ${t('notifications.legacyChat', { chat: project.alert_chat })}`
                : ''}
            </Box>
          )}
        </Alert>
        <NotificationsView scope={{ projectId }} canManage={canUpdate} />
      </Stack>
    </Box>
  );
}
