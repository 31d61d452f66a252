import { Alert, Box, Button, Stack, Typography } from '@mui/material';
import { useTranslation } from 'react-i18next';
import { errorText } from '../lib/error-text';
import { paths } from '../lib/paths';

/** The app's error state: the message, a refresh button and a re-login button. */
export function ErrorView({ error }: { error: unknown }) {
  const { t } = useTranslation();
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
