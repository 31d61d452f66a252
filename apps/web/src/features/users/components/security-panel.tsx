import ContentCopyIcon from '@mui/icons-material/ContentCopy';
import { Alert, Box, Button, IconButton, Stack, Tooltip, Typography } from '@mui/material';
import type { TotpCreated, User } from '@gantry/contracts';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { FormError } from '../../../components/form-error';
import { useSnackbar } from '../../../components/snackbar';
import { infoQuery } from '../../../lib/session';
import { totpQrUrl, useDisableTotp, useEnableTotp } from '../api/users-api';
import { DisableTotpDialog } from './disable-totp-dialog';
import { EnableTotpDialog } from './enable-totp-dialog';

/**
 * The Security tab: enable two-factor sign-in (your own with your password, when you have one
 * here; then the QR code, for yourself only, and the recovery code, shown this once with a copy
 * button), or disable it: your own only with your password or a code; an admin disables someone else's (a lost device) without. An admin may enable
 * it for someone else only when recovery codes are accepted: that user's first sign-in needs the code.
 * When the server has two-factor sign-in turned off, the tab says so and offers nothing.
 */
export function SecurityPanel({ user, self }: { user: User; self: boolean }) {
  const { t } = useTranslation();
  const totp = useQuery(infoQuery).data?.auth_methods.totp;
  const allowRecovery = totp?.allow_recovery ?? false;
  const enable = useEnableTotp(user.id);
  const disable = useDisableTotp(user.id);
  const [created, setCreated] = useState<TotpCreated | null>(null);
  const [confirming, setConfirming] = useState(false);
  const [enrolling, setEnrolling] = useState(false);

  if (created) {
    return (
      <Stack spacing={2} data-testid="totp-created">
        <Alert severity="success">{t('users.totpEnabled')}</Alert>
        {self ? (
          <Stack spacing={1} sx={{ alignItems: 'center' }}>
            <Typography variant="body2">{t('users.totpScan')}</Typography>
            <Box
              component="img"
              src={totpQrUrl(user.id, created.id)}
              alt={t('users.totpQrAlt')}
              sx={{ width: 200, height: 200, bgcolor: 'common.white', p: 1, borderRadius: 1 }}
            />
          </Stack>
        ) : (
          <Typography variant="body2">{t('users.totpOtherUser', { name: user.name })}</Typography>
        )}
        <RecoveryCode code={created.recovery_code} />
      </Stack>
    );
  }

  if (!totp?.enabled) {
    return (
      <Stack spacing={2}>
        <Typography variant="subtitle1" component="h2" sx={{ fontWeight: 600 }}>
          {t('users.totpTitle')}
        </Typography>
        <Alert severity="info">{t('users.totpServerOff')}</Alert>
      </Stack>
    );
  }

  const error = enable.error ?? disable.error;
  return (
    <Stack spacing={2} sx={{ alignItems: 'flex-start' }}>
      <FormError error={error} />
      <Typography variant="subtitle1" component="h2" sx={{ fontWeight: 600 }}>
        {t('users.totpTitle')}
      </Typography>
      <Typography variant="body2" color="text.secondary">
        {user.totp ? t('users.totpOn') : t('users.totpOff')}
      </Typography>
      {user.totp ? (
        <Button
          variant="outlined"
          color="error"
          disabled={disable.isPending}
          onClick={() => {
            if (self) setConfirming(true);
            else if (user.totp) disable.mutate({ totpId: user.totp.id });
          }}
        >
          {t('users.totpDisable')}
        </Button>
      ) : self || allowRecovery ? (
        <Button
          variant="contained"
          disabled={enable.isPending}
          onClick={() => {
            if (self && !user.external) setEnrolling(true);
            else enable.mutate(undefined, { onSuccess: setCreated });
          }}
        >
          {t('users.totpEnable')}
        </Button>
      ) : (
        <Typography variant="body2">{t('users.totpOwnOnly', { name: user.name })}</Typography>
      )}
      {enrolling ? (
        <EnableTotpDialog
          userId={user.id}
          onEnabled={(c) => {
            setEnrolling(false);
            setCreated(c);
          }}
          onClose={() => setEnrolling(false)}
        />
      ) : null}
      {confirming && user.totp ? (
        <DisableTotpDialog userId={user.id} totpId={user.totp.id} hasPassword={!user.external} onClose={() => setConfirming(false)} />
      ) : null}
    </Stack>
  );
}

/** The recovery code, shown once, with a copy button. */
function RecoveryCode({ code }: { code: string }) {
  const { t } = useTranslation();
  const snackbar = useSnackbar();
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(code);
      snackbar.success(t('users.recoveryCopied'));
    } catch (e) {
      snackbar.error(t('users.recoveryCopyFailed', { message: (e as Error).message }));
    }
  };
  return (
    <Stack spacing={1}>
      <Alert severity="warning">{t('users.recoveryText')}</Alert>
      <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, p: 1.5, bgcolor: 'action.hover', borderRadius: 1 }}>
        <Typography
          component="code"
          sx={{ fontFamily: 'monospace', fontSize: '1.1rem', letterSpacing: 1, flexGrow: 1 }}
          data-testid="recovery-code"
        >
          {code}
        </Typography>
        <Tooltip title={t('users.recoveryCopy')}>
          <IconButton aria-label={t('users.recoveryCopy')} onClick={() => void copy()}>
            <ContentCopyIcon fontSize="small" />
          </IconButton>
        </Tooltip>
      </Box>
    </Stack>
  );
}
