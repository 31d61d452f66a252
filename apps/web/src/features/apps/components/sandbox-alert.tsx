import { Alert } from '@mui/material';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { sandboxQuery } from '../api/apps-api';

/** Tells admins whether the processes apps start run in the bubblewrap sandbox. */
export function SandboxAlert() {
  const { t } = useTranslation();
  const status = useQuery(sandboxQuery).data;
  if (!status) return null;
  return status.mode === 'bwrap' ? (
    <Alert severity="success" variant="outlined" sx={{ mb: 2 }} data-testid="sandbox-status">
      {t('apps.sandboxed')}
    </Alert>
  ) : (
    <Alert severity="warning" sx={{ mb: 2 }} data-testid="sandbox-status">
      {t('apps.notSandboxed', { detail: status.detail })}
    </Alert>
  );
}
