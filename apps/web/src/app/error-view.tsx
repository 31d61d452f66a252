import { Alert, Box, Button, CircularProgress, Stack, Typography } from '@mui/material';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { errorText } from '../lib/error-text';
import { paths } from '../lib/paths';
import { isStaleBuildError, reloadForNewBuild } from '../lib/stale-build';

/**
 * The app's error state: the message, a refresh button and a re-login button. Code of an older
 * build that failed to load reloads the page into the new build instead (once; see stale-build).
 */
export function ErrorView({ error }: { error: unknown }) {
  const { t } = useTranslation();
  // Decided once, on the first render: the reload starts then, and the page only waits for it.
  const [reloading] = useState(() => isStaleBuildError(error) && reloadForNewBuild());
  if (reloading) {
    return (
      <Box sx={{ display: 'grid', placeItems: 'center', minHeight: '100vh' }} aria-busy="true">
        <CircularProgress aria-label={t('app.loading')} />
      </Box>
    );
  }
  return (
    <Box sx={{ display: 'grid', placeItems: 'center', minHeight: '100vh', p: 2 }}>
      <Stack spacing={2} sx={{ maxWidth: 480, width: '100%' }}>
        <Typography variant="h5" component="h1">
          {t('app.errorTitle')}
        </Typography>
        <Alert severity="error">{errorText(error)}</Alert>
        <Stack direction="row" spacing={1}>
          <Button variant="contained" onClick={() => window.location.reload()}>
            {t('app.refresh')}
          </Button>
          <Button onClick={() => window.location.assign(paths.login)}>{t('app.relogin')}</Button>
        </Stack>
      </Stack>
    </Box>
  );
}
