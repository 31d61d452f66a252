import { Alert, Button, Stack, TextField } from '@mui/material';
import { PASSKEY_NAME_MAX, type Passkey } from '@gantry/contracts';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { passkeysSupported, useAddPasskey } from '../api/passkeys-api';
import { passkeyErrorText } from './passkey-error';

export interface AddPasskeyFormProps {
  /** The passkey was made by the browser's authenticator and registered. */
  onAdded(passkey: Passkey): void;
  /** Fields one under the other (a narrow screen of its own) rather than side by side from `sm` up. */
  stacked?: boolean;
  /** The name field takes the focus (the form is what the screen is for). */
  autoFocus?: boolean;
}

/**
 * Adding a passkey: its name and the current password (an open session alone does not add a way
 * in), then the browser's registration ceremony. The passkeys dialog and the two-factor
 * enrolment screen both use it.
 */
export function AddPasskeyForm({ onAdded, stacked = false, autoFocus = false }: AddPasskeyFormProps) {
  const { t } = useTranslation();
  const add = useAddPasskey();
  const [name, setName] = useState(t('passkeys.defaultName'));
  const [password, setPassword] = useState('');

  if (!passkeysSupported()) return <Alert severity="info">{t('passkeys.unsupported')}</Alert>;

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!name.trim() || !password) return;
    add.mutate(
      { name: name.trim(), password },
      {
        onSuccess: (created) => {
          setName(t('passkeys.defaultName'));
          setPassword('');
          onAdded(created);
        },
      },
    );
  };

  return (
    <Stack component="form" spacing={stacked ? 2 : 1} onSubmit={submit} noValidate>
      {add.error ? (
        <Alert severity="error" role="alert">
          {passkeyErrorText(add.error, t)}
        </Alert>
      ) : null}
      <Stack direction={stacked ? 'column' : { xs: 'column', sm: 'row' }} spacing={stacked ? 2 : 1}>
        <TextField
          label={t('passkeys.name')}
          value={name}
          size={stacked ? 'medium' : 'small'}
          required
          autoFocus={autoFocus}
          onChange={(e) => setName(e.target.value)}
          slotProps={{ htmlInput: { maxLength: PASSKEY_NAME_MAX } }}
          sx={{ flex: 1 }}
        />
        <TextField
          label={t('passkeys.currentPassword')}
          type="password"
          autoComplete="current-password"
          value={password}
          size={stacked ? 'medium' : 'small'}
          required
          onChange={(e) => setPassword(e.target.value)}
          sx={{ flex: 1 }}
        />
      </Stack>
      <Button
        type="submit"
        variant="contained"
        disabled={add.isPending || !name.trim() || !password}
        sx={stacked ? undefined : { alignSelf: 'flex-start' }}
      >
        {t('passkeys.add')}
      </Button>
    </Stack>
  );
}
