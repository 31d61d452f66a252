import { Alert, Button, Link, Stack, TextField, Typography } from '@mui/material';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { errorText } from '../lib/error-text';

export interface RecoveryCodeFormProps {
  /** The last attempt's failure, shown above the form. */
  error: unknown;
  pending: boolean;
  /** Called with the trimmed code once one is typed. */
  onSubmit(code: string): void;
  /** Back to the code step. */
  onBack(): void;
}

/**
 * A recovery code in place of the authenticator's code (using one turns two-factor sign-in off):
 * the sign-in page's step and the sign-in-again dialog's.
 */
export function RecoveryCodeForm({ error, pending, onSubmit, onBack }: RecoveryCodeFormProps) {
  const { t } = useTranslation();
  const [code, setCode] = useState('');
  const [touched, setTouched] = useState(false);
  const missing = touched && !code.trim();
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setTouched(true);
    if (code.trim()) onSubmit(code.trim());
  };
  return (
    <Stack spacing={2} component="form" noValidate onSubmit={submit}>
      {error ? (
        <Alert severity="error" role="alert">
          {errorText(error)}
        </Alert>
      ) : null}
      <Typography variant="body2" color="text.secondary">
        {t('auth.recoveryHelp')}
      </Typography>
      <TextField
        label={t('auth.recoveryCode')}
        value={code}
        autoFocus
        autoComplete="off"
        onChange={(e) => setCode(e.target.value)}
        error={missing}
        helperText={missing ? t('auth.recoveryRequired') : ' '}
      />
      <Button type="submit" variant="contained" disabled={pending}>
        {t('auth.send')}
      </Button>
      <Link component="button" type="button" onClick={onBack}>
        {t('auth.backToVerify')}
      </Link>
    </Stack>
  );
}
