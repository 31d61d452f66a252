import { Alert, Box, Button } from '@mui/material';
import { useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { onServerBack, retryNow, useServerOffline } from '../lib/server-status';

/**
 * "Cannot reach the server" while calls fail for want of it (a restart, an upgrade, the network);
 * it retries in the background and goes away when the server answers, reading again what failed
 * meanwhile. The live region stays in the page so the change is announced (politely).
 */
export function OfflineBanner() {
  const { t } = useTranslation();
  const offline = useServerOffline();
  const qc = useQueryClient();
  useEffect(() => onServerBack(() => void qc.refetchQueries({ type: 'active', predicate: (q) => q.state.status === 'error' })), [qc]);
  return (
    <Box
      role="status"
      aria-live="polite"
      sx={{
        position: 'fixed',
        // Below the mobile top bar (dense, 48 px), so its menu button stays usable.
        top: { xs: 56, md: 8 },
        left: '50%',
        transform: 'translateX(-50%)',
        width: 'calc(100% - 16px)',
        maxWidth: 560,
        zIndex: (theme) => theme.zIndex.snackbar,
        pointerEvents: offline ? 'auto' : 'none',
      }}
    >
      {offline ? (
        <Alert
          severity="warning"
          variant="standard"
          data-testid="offline-banner"
          sx={{ boxShadow: 6 }}
          action={
            <Button color="inherit" size="small" onClick={retryNow} sx={{ whiteSpace: 'nowrap' }}>
              {t('app.retryNow')}
            </Button>
          }
        >
          {t('app.offline')}
        </Alert>
      ) : null}
    </Box>
  );
}
