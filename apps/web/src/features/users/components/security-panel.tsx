import ContentCopyIcon from '@mui/icons-material/ContentCopy';
import { Alert, Box, Button, IconButton, Stack, Tooltip, Typography } from '@mui/material';
import type { TotpCreated, User } from '@gantry/contracts';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { FormError } from '../../../components/form-error';
import { useSnackbar } from '../../../components/snackbar';
import { infoQuery } from '../../../lib/session';
import { useDisableTotp, useEnableTotp } from '../api/users-api';
import { DisableTotpDialog } from './disable-totp-dialog';
import { EnableTotpDialog } from './enable-totp-dialog';

/**
 * The Security tab: enable two-factor sign-in (your own with your password, when you have one
 * here, then the QR code and setup key and one code from the app, which alone turns it on; then
 * the recovery code, shown this once with a copy button), or disable it: your own only with your password or a code; an admin disables someone else's (a lost device) without. An admin may enable
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
  // The setup under way: true asks for the password first; a method is given when there is none here.
  const [enrolling, setEnrolling] = useState<TotpCreated | true | null>(null);

  if (created) {
    return (
      <Stack spacing={2} data-testid="totp-created">
        <Alert severity="success">{t('users.totpEnabled')}</Alert>
        {self ? null : <Typography variant="body2">{t('users.totpOtherUser', { name: user.name })}</Typography>}
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
            // Without a password here, your own method is made at once and waits for a code.
            else if (self) enable.mutate(undefined, { onSuccess: setEnrolling });
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
          started={enrolling === true ? null : enrolling}
          onEnabled={(c) => {
            setEnrolling(null);
            setCreated(c);
          }}
          onClose={() => setEnrolling(null)}
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
