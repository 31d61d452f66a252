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
import { ApiError } from '../../../lib/api-client';
import { errorText } from '../../../lib/error-text';
import { useEnableTotp } from '../api/users-api';

/** The server's refusal of the password itself (by its code): shown at the field, not atop the form. */
function isPasswordRefusal(error: unknown): error is ApiError {
  const code = error instanceof ApiError ? error.body?.code : undefined;
  return code === ErrorCodes.currentPasswordRequired || code === ErrorCodes.currentPasswordIncorrect;
}

/**
 * Turning on one's own two-factor sign-in: the server asks for the current password, so a
 * session left open cannot turn it on and lock the owner out. `onEnabled` gets the new method
 * (its recovery code is shown this once).
 */
export function EnableTotpDialog({
  userId,
  onEnabled,
  onClose,
}: {
  userId: number;
  onEnabled(created: TotpCreated): void;
  onClose(): void;
}) {
  const { t } = useTranslation();
  const enable = useEnableTotp(userId);
  const [password, setPassword] = useState('');
  const [touched, setTouched] = useState(false);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setTouched(true);
    if (!password) return;
    const created = await enable.mutateAsync({ password }).catch(() => null);
    if (created) onEnabled(created);
  };
  const refused = isPasswordRefusal(enable.error);
  const missing = touched && !password;
  const helper = missing ? t('users.totpPasswordRequired') : refused ? errorText(enable.error) : ' ';
  return (
    <Dialog open onClose={onClose} maxWidth="xs" fullWidth>
      <DialogTitle>{t('users.totpEnableTitle')}</DialogTitle>
      <DialogContent>
        <Stack spacing={1} component="form" id="totp-enable-form" noValidate onSubmit={(e) => void submit(e)}>
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
          {t('users.totpEnableConfirm')}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
