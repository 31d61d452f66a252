import {
  Button,
  Dialog,
  DialogActions,
  DialogContent,
  DialogContentText,
  DialogTitle,
  FormControlLabel,
  Radio,
  RadioGroup,
  Stack,
  TextField,
} from '@mui/material';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { FormError } from '../../../components/form-error';
import { useDisableTotp } from '../api/users-api';

type Kind = 'password' | 'passcode';

/**
 * Turning off one's own two-factor sign-in: the server asks for the current password or a
 * current code, so a session left open is not enough. Users without a password here (external)
 * start on the code.
 */
export function DisableTotpDialog({
  userId,
  totpId,
  hasPassword,
  onClose,
}: {
  userId: number;
  totpId: number;
  hasPassword: boolean;
  onClose(): void;
}) {
  const { t } = useTranslation();
  const disable = useDisableTotp(userId);
  const [kind, setKind] = useState<Kind>(hasPassword ? 'password' : 'passcode');
  const [value, setValue] = useState('');
  const [touched, setTouched] = useState(false);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setTouched(true);
    if (!value) return;
    const ok = await disable
      .mutateAsync({ totpId, proof: { [kind]: value } })
      .then(() => true)
      .catch(() => false);
    if (ok) onClose();
  };
  const missing = touched && !value;
  return (
    <Dialog open onClose={onClose} maxWidth="xs" fullWidth>
      <DialogTitle>{t('users.totpDisableTitle')}</DialogTitle>
      <DialogContent>
        <Stack spacing={1} component="form" id="totp-disable-form" noValidate onSubmit={(e) => void submit(e)}>
          <FormError error={disable.error} />
          <DialogContentText>{t('users.totpDisableText')}</DialogContentText>
          <RadioGroup
            row
            aria-label={t('users.totpProofKind')}
            value={kind}
            onChange={(e) => {
              setKind(e.target.value as Kind);
              setValue('');
              setTouched(false);
              disable.reset();
            }}
          >
            {hasPassword ? (
              <FormControlLabel value="password" control={<Radio />} label={t('users.totpProofPassword')} />
            ) : null}
            <FormControlLabel value="passcode" control={<Radio />} label={t('users.totpProofCode')} />
          </RadioGroup>
          {kind === 'password' ? (
            <TextField
              key="password"
              type="password"
              label={t('users.currentPassword')}
              value={value}
              onChange={(e) => setValue(e.target.value)}
              autoComplete="current-password"
              autoFocus
              required
              error={missing}
              helperText={missing ? t('users.totpProofRequired') : ' '}
            />
          ) : (
            <TextField
              key="passcode"
              label={t('users.verificationCode')}
              value={value}
              onChange={(e) => setValue(e.target.value.replace(/\D/g, ''))}
              autoComplete="one-time-code"
              autoFocus
              required
              slotProps={{ htmlInput: { inputMode: 'numeric', maxLength: 6 } }}
              error={missing}
              helperText={missing ? t('users.totpProofRequired') : ' '}
            />
          )}
        </Stack>
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>{t('common.cancel')}</Button>
        <Button type="submit" form="totp-disable-form" variant="contained" color="error" disabled={disable.isPending}>
          {t('users.totpDisableConfirm')}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
