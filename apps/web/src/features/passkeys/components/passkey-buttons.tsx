import FingerprintIcon from '@mui/icons-material/Fingerprint';
import { Alert, Button, Stack } from '@mui/material';
import { useTranslation } from 'react-i18next';
import { passkeysSupported, usePasskeySignIn, usePasskeyStep } from '../api/passkeys-api';
import { passkeyErrorText } from './passkey-error';

interface PasskeyButtonProps {
  /** Signed in (fully): the page goes on into the console. */
  onDone(): void;
}

/** "Sign in with a passkey" on the sign-in page: passwordless, any passkey of this site. */
export function PasskeySignInButton({ onDone }: PasskeyButtonProps) {
  const { t } = useTranslation();
  const signIn = usePasskeySignIn();
  if (!passkeysSupported()) return null;
  return (
    <Stack spacing={1}>
      {signIn.error ? (
        <Alert severity="error" role="alert">
          {passkeyErrorText(signIn.error, t)}
        </Alert>
      ) : null}
      <Button
        variant="outlined"
        size="large"
        startIcon={<FingerprintIcon />}
        disabled={signIn.isPending}
        onClick={() => signIn.mutate(undefined, { onSuccess: onDone })}
      >
        {t('passkeys.signIn')}
      </Button>
    </Stack>
  );
}

/**
 * "Use a passkey" on the second sign-in step, in place of a code; `only`: the user's one way
 * through (no authenticator app), so it is the step's main button, and a browser without passkeys
 * is told so rather than left with nothing to press.
 */
export function PasskeyStepButton({ onDone, only = false, keepQueries = false }: PasskeyButtonProps & { only?: boolean; keepQueries?: boolean }) {
  const { t } = useTranslation();
  const step = usePasskeyStep(keepQueries);
  if (!passkeysSupported()) return only ? <Alert severity="info">{t('passkeys.unsupported')}</Alert> : null;
  return (
    <Stack spacing={1}>
      {step.error ? (
        <Alert severity="error" role="alert">
          {passkeyErrorText(step.error, t)}
        </Alert>
      ) : null}
      <Button
        variant={only ? 'contained' : 'outlined'}
        size={only ? 'large' : 'medium'}
        autoFocus={only}
        startIcon={<FingerprintIcon />}
        disabled={step.isPending}
        onClick={() => step.mutate(undefined, { onSuccess: onDone })}
      >
        {t('passkeys.useForStep')}
      </Button>
    </Stack>
  );
}
