import { Alert, Box, CircularProgress, Link, Stack, TextField, Typography } from '@mui/material';
import { Messages, VERIFICATION_CODE_LENGTH } from '@gantry/contracts';
import { useQuery } from '@tanstack/react-query';
import { useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiError } from '../../../lib/api-client';
import { RecoveryCodeForm } from '../../../components/recovery-code-form';
import { errorText } from '../../../lib/error-text';
import { secondFactorsQuery, useRecovery, useVerify } from '../api/auth-api';

type Step = 'login' | 'verify' | 'recovery';

interface VerifyFormProps {
  mode: 'verify' | 'recovery';
  /** The server accepts a recovery code in place of a code (auth_methods.totp.allow_recovery). */
  allowRecovery: boolean;
  onDone(): void;
  onSwitch(step: Step): void;
  /**
   * Another way through this step (a passkey), given by the app; `only`: it is the user's one way
   * (no authenticator app), so it leads the step.
   */
  passkeyStep?: ((done: () => void, only: boolean) => ReactNode) | undefined;
  /** Signing in again over a page: its loaded data stays (see useVerify). */
  keepQueries?: boolean;
}

/** The second sign-in step: a 6-character code sent as soon as it is complete, or a recovery code. */
export function VerifyForm(props: VerifyFormProps) {
  return props.mode === 'verify' ? <CodeStep {...props} /> : <RecoveryStep {...props} />;
}

/**
 * The code field, the passkey button and the recovery link, each only when the user has that way
 * through (GET /api/auth/second-factors); should the server not say, all of them, as before.
 */
function CodeStep({ allowRecovery, onDone, onSwitch, passkeyStep, keepQueries = false }: VerifyFormProps) {
  const { t } = useTranslation();
  const factors = useQuery(secondFactorsQuery);
  if (factors.isPending) {
    return (
      <Box sx={{ display: 'grid', placeItems: 'center', py: 2 }} aria-busy="true">
        <CircularProgress size={32} aria-label={t('app.loading')} />
      </Box>
    );
  }
  const has = factors.data ?? { totp: true, passkey: true, recovery: allowRecovery };
  return (
    <Stack spacing={2}>
      {has.totp ? <CodeField onDone={onDone} keepQueries={keepQueries} /> : null}
      {has.passkey && !has.totp ? (
        <Typography variant="body2" color="text.secondary">
          {t('auth.passkeyStepHelp')}
        </Typography>
      ) : null}
      {has.passkey ? passkeyStep?.(onDone, !has.totp) : null}
      {has.recovery ? (
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

/** The authenticator app's code, sent as soon as it is complete. */
function CodeField({ onDone, keepQueries }: { onDone(): void; keepQueries: boolean }) {
  const { t } = useTranslation();
  const verify = useVerify(keepQueries);
  const [code, setCode] = useState('');
  const failure = verify.error;
  const message =
    failure instanceof ApiError && failure.body?.error === Messages.incorrectVerificationCode
      ? t('auth.incorrectCode')
      : failure
        ? errorText(failure)
        : null;
  return (
    <>
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
    </>
  );
}

function RecoveryStep({ onDone, onSwitch, keepQueries = false }: VerifyFormProps) {
  const recovery = useRecovery(keepQueries);
  return (
    <RecoveryCodeForm
      error={recovery.error}
      pending={recovery.isPending}
      onSubmit={(code) => recovery.mutate(code, { onSuccess: onDone })}
      onBack={() => onSwitch('verify')}
    />
  );
}
