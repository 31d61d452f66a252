import { ErrorCodes, type TotpCreated } from '@gantry/contracts';
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
import { errorText } from '../../../lib/error-text';
import { useConfirmTotp, useEnableTotp } from '../api/users-api';
import { refusedWith, TotpConfirmFields } from './totp-confirm-fields';

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
    return (
      <Dialog open onClose={onClose} maxWidth="xs" fullWidth>
        <DialogTitle>{t('users.totpEnableTitle')}</DialogTitle>
        <DialogContent>
          <Stack spacing={2} component="form" id="totp-confirm-form" noValidate onSubmit={(e) => void submitCode(e)}>
            <TotpConfirmFields
              userId={userId}
              pending={pending}
              code={code}
              onCode={(value) => {
                setCode(value);
                if (confirm.error) confirm.reset();
              }}
              error={confirm.error}
              touched={touched}
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
