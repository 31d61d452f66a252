import LinkOffIcon from '@mui/icons-material/LinkOff';
import { Button } from '@mui/material';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { EmptyState } from '../components/empty-state';
import { paths } from '../lib/paths';

/** An address the console does not know (or a project that is not there): spec "Incorrect URL". */
export function NotFound() {
  const { t } = useTranslation();
  return (
    <EmptyState
      heading
      icon={<LinkOffIcon sx={{ fontSize: 48, mb: 1 }} />}
      title={t('app.incorrectUrl')}
      hint={t('app.incorrectUrlHint')}
      action={
        <Button component={Link} to={paths.root} variant="outlined">
          {t('app.toDashboard')}
        </Button>
      }
    />
  );
}
