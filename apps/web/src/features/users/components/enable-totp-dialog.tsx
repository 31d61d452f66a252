import { ErrorCodes, VERIFICATION_CODE_LENGTH, type TotpCreated } from '@gantry/contracts';
import {
  Button,
  Dialog,
  DialogActions,
  DialogContent,
  DialogContentText,
  DialogTitle,
  Stack,
  TextField,
} from '@mui/material';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { FormError } from '../../../components/form-error';
import { ApiError } from '../../../lib/api-client';
import { errorText } from '../../../lib/error-text';
import { useConfirmTotp, useEnableTotp } from '../api/users-api';
import { TotpSetupKey } from './totp-setup-key';

/** The server's refusal of a field (by its code): shown at the field, not atop the form. */
function refusedWith(error: unknown, codes: string[]): boolean {
  const code = error instanceof ApiError ? error.body?.code : undefined;
  return typeof code === 'string' && codes.includes(code);
}

/**
 * Turning on one's own two-factor sign-in, in two steps. First the current password (when the
 * user has one here: a session left open cannot start it), which makes a method that waits for
 * its first code; then its QR code and setup key for the authenticator app, and one code from
 * the app: only that code turns the method on, so a secret that never reached an app locks
 * nobody out. `started` skips the first step (a user without a password here). `onEnabled` gets
 * the method (its recovery code is shown this once).
 */
export function EnableTotpDialog({
  userId,
  started,
  onEnabled,
  onClose,
}: {
  userId: number;
  started?: TotpCreated | null;
  onEnabled(created: TotpCreated): void;
  onClose(): void;
}) {
  const { t } = useTranslation();
  const enable = useEnableTotp(userId);
  const confirm = useConfirmTotp(userId);
  const [pending, setPending] = useState<TotpCreated | null>(started ?? null);
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  const [touched, setTouched] = useState(false);

  const submitPassword = async (e: FormEvent) => {
    e.preventDefault();
    setTouched(true);
    if (!password) return;
    const created = await enable.mutateAsync({ password }).catch(() => null);
    if (created) {
      setTouched(false);
      setPending(created);
    }
  };
  const submitCode = async (e: FormEvent) => {
    e.preventDefault();
    setTouched(true);
    if (!pending || !code.trim()) return;
    const ok = await confirm.mutateAsync({ totpId: pending.id, code: code.trim() }).then(
      () => true,
      () => false,
    );
    if (ok) onEnabled({ ...pending, confirmed: true });
  };

  if (pending) {
    const refused = refusedWith(confirm.error, [ErrorCodes.totpCodeIncorrect]);
    const missing = touched && !code.trim();
    const helper = missing ? t('users.totpCodeRequired') : refused ? errorText(confirm.error) : t('users.totpCodeHelp');
    return (
      <Dialog open onClose={onClose} maxWidth="xs" fullWidth>
        <DialogTitle>{t('users.totpEnableTitle')}</DialogTitle>
        <DialogContent>
          <Stack spacing={2} component="form" id="totp-confirm-form" noValidate onSubmit={(e) => void submitCode(e)}>
            {refused ? null : <FormError error={confirm.error} />}
            <TotpSetupKey userId={userId} totpId={pending.id} secret={pending.secret ?? ''} />
            <TextField
              label={t('auth.verifyCode')}
              value={code}
              onChange={(e) => {
                setCode(e.target.value);
                if (confirm.error) confirm.reset();
              }}
              autoComplete="one-time-code"
              required
              error={missing || refused}
              helperText={helper}
              slotProps={{ htmlInput: { inputMode: 'numeric', maxLength: VERIFICATION_CODE_LENGTH + 2 } }}
            />
          </Stack>
        </DialogContent>
        <DialogActions>
          <Button onClick={onClose}>{t('common.cancel')}</Button>
          <Button type="submit" form="totp-confirm-form" variant="contained" disabled={confirm.isPending}>
            {t('users.totpEnableConfirm')}
          </Button>
        </DialogActions>
      </Dialog>
    );
  }

  const refused = refusedWith(enable.error, [ErrorCodes.currentPasswordRequired, ErrorCodes.currentPasswordIncorrect]);
  const missing = touched && !password;
  const helper = missing ? t('users.totpPasswordRequired') : refused ? errorText(enable.error) : ' ';
  return (
    <Dialog open onClose={onClose} maxWidth="xs" fullWidth>
      <DialogTitle>{t('users.totpEnableTitle')}</DialogTitle>
      <DialogContent>
        <Stack spacing={1} component="form" id="totp-enable-form" noValidate onSubmit={(e) => void submitPassword(e)}>
          {refused ? null : <FormError error={enable.error} />}
          <DialogContentText>{t('users.totpEnableText')}</DialogContentText>
          <TextField
            type="password"
            label={t('users.currentPassword')}
            value={password}
            onChange={(e) => {
              setPassword(e.target.value);
              if (enable.error) enable.reset();
            }}
            autoComplete="current-password"
            autoFocus
            required
            error={missing || refused}
            helperText={helper}
          />
        </Stack>
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>{t('common.cancel')}</Button>
        <Button type="submit" form="totp-enable-form" variant="contained" disabled={enable.isPending}>
          {t('users.totpContinue')}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
