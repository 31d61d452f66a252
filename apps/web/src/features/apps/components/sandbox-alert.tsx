import SuccessIcon from '@mui/icons-material/CheckCircleOutlined';
import ErrorIcon from '@mui/icons-material/ErrorOutlined';
import InfoIcon from '@mui/icons-material/InfoOutlined';
import WarningIcon from '@mui/icons-material/WarningAmberOutlined';
import { Alert, Divider, List, ListItem, ListItemIcon, ListItemText, Paper } from '@mui/material';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { sandboxQuery } from '../api/apps-api';
import { probeRows } from './sandbox-probe-rows';

const ICONS = { success: SuccessIcon, info: InfoIcon, warning: WarningIcon, error: ErrorIcon } as const;

/**
 * Tells admins whether the processes apps start run in the bubblewrap sandbox and, under it, what a
 * probe process started exactly as a task measured: its user, capabilities and network.
 */
export function SandboxAlert() {
  const { t } = useTranslation();
  const status = useQuery(sandboxQuery).data;
  if (!status) return null;
  const rows = probeRows(status, t);
  return (
    <Paper variant="outlined" sx={{ mb: 2, overflow: 'hidden' }}>
      {status.mode === 'bwrap' ? (
        <Alert severity="success" sx={{ borderRadius: 0 }} data-testid="sandbox-status">
          {t('apps.sandboxed')}
        </Alert>
      ) : (
        <Alert severity="warning" sx={{ borderRadius: 0 }} data-testid="sandbox-status">
          {t('apps.notSandboxed', { detail: status.detail })}
        </Alert>
      )}
      {rows.length ? (
        <>
          <Divider />
          <List dense aria-label={t('apps.probe.title')} data-testid="sandbox-probe" sx={{ py: 0.5 }}>
            {rows.map(({ key, severity, text }) => {
              const Icon = ICONS[severity];
              return (
                <ListItem key={key} data-severity={severity} sx={{ alignItems: 'flex-start' }}>
                  <ListItemIcon sx={{ minWidth: 32, mt: 0.5 }}>
                    {/* The icon's name says the severity, so it is not told by colour alone. */}
                    <Icon fontSize="small" color={severity} titleAccess={t(`apps.probe.severity.${severity}`)} />
                  </ListItemIcon>
                  <ListItemText primary={text} slotProps={{ primary: { sx: { overflowWrap: 'anywhere' } } }} />
                </ListItem>
              );
            })}
          </List>
        </>
      ) : null}
    </Paper>
  );
}
