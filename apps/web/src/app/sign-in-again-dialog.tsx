import {
  Alert,
  Box,
  Button,
  CircularProgress,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  Stack,
  TextField,
  Typography,
} from '@mui/material';
import type { CurrentUser } from '@gantry/contracts';
import { useMutation, useQuery } from '@tanstack/react-query';
import { useEffect, useState, type FormEvent, type MouseEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { abandonSession, loginInfoQuery } from '../features/auth/api/auth-api';
import { ProviderButtons } from '../features/auth/components/provider-buttons';
import { VerifyForm } from '../features/auth/components/verify-form';
import { PasskeyStepButton } from '../features/passkeys/components/passkey-buttons';
import { ApiError, api } from '../lib/api-client';
import { errorText } from '../lib/error-text';
import { markedLanding, signedInAs } from './sign-in-window';

export type SignInStep = 'login' | 'verify' | 'recovery';

/** How often the page asks whether the provider's window signed in, and for how long. */
const POPUP_POLL_MS = 1_000;
const POPUP_WAIT_MS = 5 * 60_000;

interface Props {
  /** Open on this step; closed when null. */
  step: SignInStep | null;
  /** The user whose session ended: the username is filled in. */
  user: CurrentUser | undefined;
  onStep(step: SignInStep): void;
  /** Signed in (and past the code when asked): who is signed in now. */
  onSignedIn(user: CurrentUser): void;
  /** Give up: to the sign-in page, leaving the page and what is typed in it. */
  onLeave(): void;
}

/**
 * Sign in again over the page whose session ended: the password and then the code when the
 * account asks for one, or a provider in a new window (the page stays, so what is typed stays).
 * Deliberately not dismissible: the page behind cannot save anything until signed in.
 */
export function SignInAgainDialog({ step, user, onStep, onSignedIn, onLeave }: Props) {
  const { t } = useTranslation();
  const info = useQuery({ ...loginInfoQuery, enabled: step !== null }).data;
  const [popup, setPopup] = useState<Window | null>(null);

  // After the provider's window signed in, the session is this browser's: close it and go on.
  useEffect(() => {
    if (!popup) return;
    const started = Date.now();
    let stopped = false;
    const poll = async () => {
      const who = await signedInAs();
      if (stopped) return;
      if (who === null) {
        if (Date.now() - started < POPUP_WAIT_MS) timer = setTimeout(() => void poll(), POPUP_POLL_MS);
        else setPopup(null);
        return;
      }
      popup.close();
      setPopup(null);
      if (who === 'verify') onStep('verify');
      else onSignedIn(who);
    };
    let timer = setTimeout(() => void poll(), POPUP_POLL_MS);
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [popup, onStep, onSignedIn]);

  const here = `${window.location.pathname}${window.location.search}`;
  // Past the second step: who is signed in now (the page behind goes on as them).
  const afterSecondStep = () =>
    void signedInAs().then((who) => {
      if (who !== null && who !== 'verify') onSignedIn(who);
    });
  // A provider's button is a link into the server's redirect flow: open it in a window of its own,
  // landing on a marked address (the page stays, and so does what is typed). When the browser
  // blocks the window, the link is followed here instead, back to this address unmarked.
  const openProvider = (e: MouseEvent) => {
    const link = (e.target as Element).closest('a');
    if (!link) return;
    const url = new URL(link.href);
    url.searchParams.set('redirect', markedLanding(here));
    const win = window.open(url.href, 'gantry-sign-in', 'popup,width=520,height=680');
    if (!win) return;
    e.preventDefault();
    setPopup(win);
  };

  return (
    <Dialog
      open={step !== null}
      aria-labelledby="sign-in-again-title"
      maxWidth="xs"
      fullWidth
      data-testid="sign-in-again"
    >
      <DialogTitle id="sign-in-again-title">
        {step === 'login' || step === null
          ? t('session.title')
          : step === 'verify'
            ? t('auth.verifyTitle')
            : t('auth.recoveryTitle')}
      </DialogTitle>
      <DialogContent>
        {popup ? (
          <Stack direction="row" spacing={2} sx={{ alignItems: 'center', py: 1 }} role="status">
            <CircularProgress size={24} />
            <Typography>{t('session.waitingForProvider')}</Typography>
          </Stack>
        ) : step === 'login' ? (
          <Stack spacing={2}>
            <Typography>{t('session.expired')}</Typography>
            {info?.login_with_password !== false ? (
              <PasswordStep user={user} onVerify={() => onStep('verify')} onSignedIn={onSignedIn} />
            ) : null}
            {info && info.oidc_providers.length > 0 ? (
              <Stack spacing={1}>
                <Box onClickCapture={openProvider}>
                  <ProviderButtons providers={info.oidc_providers} redirect={here} />
                </Box>
                <Typography variant="body2" color="text.secondary">
                  {t('session.providerHint')}
                </Typography>
              </Stack>
            ) : null}
          </Stack>
        ) : step === 'verify' || step === 'recovery' ? (
          <VerifyForm
            mode={step}
            allowRecovery={!!info?.auth_methods.totp.allow_recovery}
            keepQueries
            onDone={afterSecondStep}
            onSwitch={(next) => (next === 'login' ? void abandonSession().then(() => onStep('login')) : onStep(next))}
            passkeyStep={(done, only) => <PasskeyStepButton only={only} keepQueries onDone={done} />}
          />
        ) : null}
      </DialogContent>
      <DialogActions>
        {popup ? (
          <Button
            onClick={() => {
              popup.close();
              setPopup(null);
            }}
          >
            {t('common.cancel')}
          </Button>
        ) : (
          <Button onClick={onLeave}>{t('session.leave')}</Button>
        )}
      </DialogActions>
    </Dialog>
  );
}

/** After a step passed: who is signed in now, or the code step when the account asks for one. */
async function nextAfter(send: () => Promise<void>): Promise<CurrentUser | 'verify'> {
  await send();
  const who = await signedInAs();
  if (who === null) throw new ApiError(401, 'Unauthorized', null);
  return who;
}

function PasswordStep({
  user,
  onVerify,
  onSignedIn,
}: {
  user: CurrentUser | undefined;
  onVerify(): void;
  onSignedIn(user: CurrentUser): void;
}) {
  const { t } = useTranslation();
  const [auth, setAuth] = useState(user?.username ?? '');
  const [password, setPassword] = useState('');
  const [touched, setTouched] = useState(false);
  const login = useMutation({
    mutationFn: (body: { auth: string; password: string }) =>
      nextAfter(() => api.post('/auth/login', body, { quiet401: true })),
    onSuccess: (who) => (who === 'verify' ? onVerify() : onSignedIn(who)),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setTouched(true);
    if (auth.trim() && password) login.mutate({ auth: auth.trim(), password });
  };
  return (
    <Stack component="form" spacing={2} onSubmit={submit} noValidate>
      {login.error ? (
        <Alert severity="error" role="alert">
          {errorText(login.error)}
        </Alert>
      ) : null}
      <TextField
        label={t('auth.username')}
        value={auth}
        onChange={(e) => setAuth(e.target.value)}
        autoComplete="username"
        autoFocus={!user}
        error={touched && !auth.trim()}
        helperText={touched && !auth.trim() ? t('auth.usernameRequired') : ' '}
      />
      <TextField
        label={t('auth.password')}
        type="password"
        value={password}
        onChange={(e) => setPassword(e.target.value)}
        autoComplete="current-password"
        autoFocus={!!user}
        error={touched && !password}
        helperText={touched && !password ? t('auth.passwordRequired') : ' '}
      />
      <Button type="submit" variant="contained" disabled={login.isPending}>
        {t('auth.signIn')}
      </Button>
    </Stack>
  );
}
