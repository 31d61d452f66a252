import { Box, Typography } from '@mui/material';
import { useTranslation } from 'react-i18next';
import { PageHeader } from '../../components/page-header';
import { NotificationsView } from './components/notifications-view';

const GLOBAL = { projectId: null };

/** /notifications (admins): server-wide destinations and rules, for the events of every project. */
export function GlobalNotificationsPage() {
  const { t } = useTranslation();
  return (
    <Box>
      <PageHeader title={t('notifications.globalTitle')} />
      <Typography variant="body2" color="text.secondary" sx={{ mb: 2 }}>
        {t('notifications.globalHint')}
      </Typography>
      <NotificationsView scope={GLOBAL} canManage />
    </Box>
  );
}
