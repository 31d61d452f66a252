import ContentCopyIcon from '@mui/icons-material/ContentCopy';
import { Box, IconButton, Stack, Tooltip, Typography } from '@mui/material';
import { useTranslation } from 'react-i18next';
import { useSnackbar } from '../../../components/snackbar';
import { totpQrUrl } from '../api/users-api';

/** The key as authenticator apps show it: groups of four, easier to type and to compare. */
export const groupSecret = (secret: string) => secret.match(/.{1,4}/g)?.join(' ') ?? '';

/**
 * A new method's QR code and its setup key (for an app that cannot scan: typed in, or copied),
 * shown only to the user themself while the method waits for its first code.
 */
export function TotpSetupKey({ userId, totpId, secret }: { userId: number; totpId: number; secret: string }) {
  const { t } = useTranslation();
  const snackbar = useSnackbar();
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(secret);
      snackbar.success(t('users.totpKeyCopied'));
    } catch (e) {
      snackbar.error(t('users.totpKeyCopyFailed', { message: (e as Error).message }));
    }
  };
  return (
    <Stack spacing={1} sx={{ alignItems: 'center' }}>
      <Typography variant="body2">{t('users.totpScanOrType')}</Typography>
      <Box
        component="img"
        src={totpQrUrl(userId, totpId)}
        alt={t('users.totpQrAlt')}
        sx={{ width: 200, height: 200, bgcolor: 'common.white', p: 1, borderRadius: 1 }}
      />
      <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, p: 1, bgcolor: 'action.hover', borderRadius: 1, width: '100%' }}>
        <Box sx={{ flexGrow: 1, minWidth: 0 }}>
          <Typography variant="caption" color="text.secondary" component="p" id="totp-setup-key-label">
            {t('users.totpKey')}
          </Typography>
          <Typography
            component="code"
            aria-labelledby="totp-setup-key-label"
            data-testid="totp-secret"
            sx={{ fontFamily: 'monospace', fontSize: '1rem', letterSpacing: 1, wordBreak: 'break-word', display: 'block' }}
          >
            {groupSecret(secret)}
          </Typography>
        </Box>
        <Tooltip title={t('users.totpKeyCopy')}>
          <IconButton aria-label={t('users.totpKeyCopy')} onClick={() => void copy()}>
            <ContentCopyIcon fontSize="small" />
          </IconButton>
        </Tooltip>
      </Box>
    </Stack>
  );
}
