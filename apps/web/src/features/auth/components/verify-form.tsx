import { Alert, Button, Link, Stack, TextField } from '@mui/material';
import { VERIFICATION_CODE_LENGTH } from '@gantry/contracts';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiError } from '../../../lib/api-client';
import { errorText } from '../../../lib/error-text';
import { useRecovery, useVerify } from '../api/auth-api';

/** The second sign-in step: a 6-character code sent as soon as it is complete, or a recovery code. */
export function VerifyForm({ mode, allowRecovery, onDone, onSwitch }: { mode: 'verify' | 'recovery'; allowRecovery: boolean; onDone(): void; onSwitch(step: 'login' | 'verify' | 'recovery'): void }) {
  const { t } = useTranslation();
  const verify = useVerify();
  const recovery = useRecovery();
  const [code, setCode] = useState('');
  const [touched, setTouched] = useState(false);
  const failure = mode === 'verify' ? verify.error : recovery.error;
  const message = failure instanceof ApiError && failure.status === 401 && mode === 'verify' ? t('auth.incorrectCode') : failure ? errorText(failure) : null;
  if (mode === 'verify') {
    return (
      <Stack spacing={2}>
        {message ? <Alert severity="error">{message}</Alert> : null}
        <TextField
          label={t('auth.verifyCode')}
          value={code}
          autoFocus
          slotProps={{ htmlInput: { maxLength: VERIFICATION_CODE_LENGTH, inputMode: 'numeric' } }}
          onChange={(e) => {
            const v = e.target.value.trim();
            setCode(v);
            if (v.length === VERIFICATION_CODE_LENGTH) verify.mutate(v, { onSuccess: onDone });
          }}
        />
        {allowRecovery ? (
          <Link component="button" type="button" onClick={() => onSwitch('recovery')}>
            {t('auth.useRecovery')}
          </Link>
        ) : null}
        <Link component="button" type="button" onClick={() => onSwitch('login')}>
          {t('auth.backToLogin')}
        </Link>
      </Stack>
    );
  }
  return (
    <Stack spacing={2} component="form" noValidate onSubmit={(e) => { e.preventDefault(); setTouched(true); if (code.trim()) recovery.mutate(code.trim(), { onSuccess: onDone }); }}>
      {message ? <Alert severity="error">{message}</Alert> : null}
      <TextField label={t('auth.recoveryCode')} value={code} onChange={(e) => setCode(e.target.value)} error={touched && !code.trim()} helperText={touched && !code.trim() ? t('auth.recoveryRequired') : ' '} />
      <Button type="submit" variant="contained">
        {t('auth.send')}
      </Button>
      <Link component="button" type="button" onClick={() => onSwitch('verify')}>
        {t('auth.backToLogin')}
      </Link>
    </Stack>
  );
}
