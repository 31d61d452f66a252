import LockIcon from '@mui/icons-material/LockOutlined';
import { Button } from '@mui/material';
import { useTranslation } from 'react-i18next';
import { Link, Outlet } from 'react-router';
import { EmptyState } from '../components/empty-state';
import { paths } from '../lib/paths';
import { useCurrentUser } from '../lib/session';

/** The admin pages (users, active tasks, apps, runners, cluster): others are told so, not shown a blank page. */
export function AdminRoute() {
  const { t } = useTranslation();
  const me = useCurrentUser();
  if (me.admin) return <Outlet />;
  return (
    <EmptyState
      heading
      icon={<LockIcon sx={{ fontSize: 48, mb: 1 }} />}
      title={t('app.noAccess')}
      hint={t('app.noAccessHint')}
      action={
        <Button component={Link} to={paths.root} variant="outlined">
          {t('app.toDashboard')}
        </Button>
      }
    />
  );
}
