import { Alert, Link, Stack, TextField } from '@mui/material';
import { Messages, VERIFICATION_CODE_LENGTH } from '@gantry/contracts';
import { useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiError } from '../../../lib/api-client';
import { RecoveryCodeForm } from '../../../components/recovery-code-form';
import { errorText } from '../../../lib/error-text';
import { useRecovery, useVerify } from '../api/auth-api';

type Step = 'login' | 'verify' | 'recovery';

interface VerifyFormProps {
  mode: 'verify' | 'recovery';
  /** The server accepts a recovery code in place of a code (auth_methods.totp.allow_recovery). */
  allowRecovery: boolean;
  onDone(): void;
  onSwitch(step: Step): void;
  /** Another way through this step (a passkey), given by the app. */
  passkeyStep?: ((done: () => void) => ReactNode) | undefined;
}

/** The second sign-in step: a 6-character code sent as soon as it is complete, or a recovery code. */
export function VerifyForm(props: VerifyFormProps) {
  return props.mode === 'verify' ? <CodeStep {...props} /> : <RecoveryStep {...props} />;
}

function CodeStep({ allowRecovery, onDone, onSwitch, passkeyStep }: VerifyFormProps) {
  const { t } = useTranslation();
  const verify = useVerify();
  const [code, setCode] = useState('');
  const failure = verify.error;
  const message =
    failure instanceof ApiError && failure.body?.error === Messages.incorrectVerificationCode
      ? t('auth.incorrectCode')
      : failure
        ? errorText(failure)
        : null;
  return (
    <Stack spacing={2}>
      {message ? (
        <Alert severity="error" role="alert">
          {message}
        </Alert>
      ) : null}
      <TextField
        label={t('auth.verifyCode')}
        value={code}
        autoFocus
        autoComplete="one-time-code"
        helperText={t('auth.verifyHelp')}
        slotProps={{
          htmlInput: { maxLength: VERIFICATION_CODE_LENGTH, inputMode: 'numeric', readOnly: verify.isPending },
        }}
        onChange={(e) => {
          const v = e.target.value.replace(/\s/g, '');
          setCode(v);
          if (v.length === VERIFICATION_CODE_LENGTH)
            verify.mutate(v, { onSuccess: onDone, onError: () => setCode('') });
        }}
      />
      {passkeyStep?.(onDone)}
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

function RecoveryStep({ onDone, onSwitch }: VerifyFormProps) {
  const recovery = useRecovery();
  return (
    <RecoveryCodeForm
      error={recovery.error}
      pending={recovery.isPending}
      onSubmit={(code) => recovery.mutate(code, { onSuccess: onDone })}
      onBack={() => onSwitch('verify')}
    />
  );
}
