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
import { useEnableTotp } from '../api/users-api';

/** The server's refusal of the password, told apart by its code (shown at the field, in the user's language). */
function passwordRefusal(error: unknown): 'required' | 'incorrect' | null {
  if (!(error instanceof ApiError)) return null;
  if (error.body?.code === ErrorCodes.currentPasswordRequired) return 'required';
  if (error.body?.code === ErrorCodes.currentPasswordIncorrect) return 'incorrect';
  return null;
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
  const refusal = passwordRefusal(enable.error);
  const missing = (touched && !password) || refusal === 'required';
  const helper = missing
    ? t('users.totpPasswordRequired')
    : refusal === 'incorrect'
      ? t('users.currentPasswordIncorrect')
      : ' ';
  return (
    <Dialog open onClose={onClose} maxWidth="xs" fullWidth>
      <DialogTitle>{t('users.totpEnableTitle')}</DialogTitle>
      <DialogContent>
        <Stack spacing={1} component="form" id="totp-enable-form" noValidate onSubmit={(e) => void submit(e)}>
          {refusal ? null : <FormError error={enable.error} />}
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
            error={missing || refusal === 'incorrect'}
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
