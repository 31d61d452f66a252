import { ErrorCodes, type TotpCreated } from '@gantry/contracts';
import { Alert, Box, Button, Paper, Stack, Tab, Tabs, TextField, Typography } from '@mui/material';
import { useState, type FormEvent, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { FormError } from '../../components/form-error';
import { errorText } from '../../lib/error-text';
import { useConfirmTotp, useEnableTotp } from './api/users-api';
import { refusedWith, TotpConfirmFields } from './components/totp-confirm-fields';

type Method = 'totp' | 'passkey';

/**
 * The only screen of a user the administrator requires to use two-factor sign-in and who has not
 * set it up: their password (when they have one here; a session left open cannot start it), the
 * QR code and setup key, one code from the app, then the recovery code; or, for a user with a
 * password here, a passkey instead (`passkeyEnrol`, given by the app), which meets the
 * requirement as well. Nothing else is reachable but signing out; `onDone` goes on to the page
 * the user was going to.
 */
export function EnrolmentPage({
  user,
  onDone,
  onSignOut,
  passkeyEnrol,
}: {
  user: { id: number; external: boolean };
  onDone(): void;
  onSignOut(): void;
  /** Adding a passkey (the passkeys feature's form); `done` once it is registered. */
  passkeyEnrol?: ((done: () => void) => ReactNode) | undefined;
}) {
  const { t } = useTranslation();
  // Passkeys are for users who sign in with a password here (the server refuses others).
  const offersPasskey = !!passkeyEnrol && !user.external;
  const [method, setMethod] = useState<Method>('totp');
  const enable = useEnableTotp(user.id);
  const confirm = useConfirmTotp(user.id);
  const [pending, setPending] = useState<TotpCreated | null>(null);
  const [done, setDone] = useState(false);
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  const [touched, setTouched] = useState(false);

  const start = async (e: FormEvent) => {
    e.preventDefault();
    setTouched(true);
    if (!user.external && !password) return;
    const created = await enable.mutateAsync(user.external ? undefined : { password }).catch(() => null);
    if (created) {
      setTouched(false);
      setPassword('');
      setPending(created);
    }
  };
  const submitCode = async (e: FormEvent) => {
    e.preventDefault();
    setTouched(true);
    if (!pending || !code.trim()) return;
    const ok = await confirm.mutateAsync({ totpId: pending.id, code: code.trim() }).then(
      () => true,
      () => false,
    );
    if (ok) setDone(true);
  };

  let step;
  if (pending && done) {
    step = (
      <Stack spacing={2}>
        <Alert severity="success">{t('enrolment.done')}</Alert>
        <Alert severity="warning">{t('users.recoveryText')}</Alert>
        <Box
          component="code"
          data-testid="recovery-code"
          sx={{
            fontFamily: 'monospace',
            fontSize: '1.1rem',
            letterSpacing: 1,
            p: 1.5,
            bgcolor: 'action.hover',
            borderRadius: 1,
            wordBreak: 'break-all',
          }}
        >
          {pending.recovery_code}
        </Box>
        <Button variant="contained" onClick={onDone} autoFocus>
          {t('enrolment.continue')}
        </Button>
      </Stack>
    );
  } else if (pending) {
    step = (
      <Stack spacing={2} component="form" noValidate onSubmit={(e) => void submitCode(e)}>
        <TotpConfirmFields
          userId={user.id}
          pending={pending}
          code={code}
          onCode={(value) => {
            setCode(value);
            if (confirm.error) confirm.reset();
          }}
          error={confirm.error}
          touched={touched}
        />
        <Button type="submit" variant="contained" disabled={confirm.isPending}>
          {t('users.totpEnableConfirm')}
        </Button>
      </Stack>
    );
  } else {
    const refused = refusedWith(enable.error, [
      ErrorCodes.currentPasswordRequired,
      ErrorCodes.currentPasswordIncorrect,
    ]);
    const missing = touched && !password;
    const totpStart = (
      <Stack spacing={2} component="form" noValidate onSubmit={(e) => void start(e)}>
        {refused ? null : <FormError error={enable.error} />}
        {user.external ? null : (
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
            helperText={
              missing
                ? t('users.totpPasswordRequired')
                : refused
                  ? errorText(enable.error)
                  : t('enrolment.passwordHelp')
            }
          />
        )}
        <Button type="submit" variant="contained" disabled={enable.isPending}>
          {t('users.totpContinue')}
        </Button>
      </Stack>
    );
    step =
      offersPasskey && passkeyEnrol ? (
        <Stack spacing={2}>
          <Tabs
            value={method}
            onChange={(_, next: Method) => setMethod(next)}
            variant="fullWidth"
            aria-label={t('enrolment.methods')}
          >
            {(['totp', 'passkey'] as const).map((m) => (
              <Tab
                key={m}
                value={m}
                id={`enrolment-tab-${m}`}
                label={m === 'totp' ? t('enrolment.methodApp') : t('enrolment.methodPasskey')}
                // Only the shown panel exists to point at.
                aria-controls={method === m ? `enrolment-panel-${m}` : undefined}
              />
            ))}
          </Tabs>
          <Box role="tabpanel" id={`enrolment-panel-${method}`} aria-labelledby={`enrolment-tab-${method}`}>
            {method === 'totp' ? (
              totpStart
            ) : (
              <Stack spacing={2}>
                <Typography variant="body2">{t('enrolment.passkeyHelp')}</Typography>
                {passkeyEnrol(onDone)}
              </Stack>
            )}
          </Box>
        </Stack>
      ) : (
        totpStart
      );
  }

  return (
    <Box
      component="main"
      sx={{ minHeight: '100vh', display: 'grid', placeItems: 'center', p: 2, bgcolor: 'background.default' }}
    >
      <Paper variant="outlined" sx={{ p: { xs: 2, sm: 4 }, width: '100%', maxWidth: 440 }}>
        <Stack spacing={2}>
          <Typography variant="h5" component="h1">
            {t('enrolment.title')}
          </Typography>
          <Typography variant="body2" color="text.secondary">
            {offersPasskey ? t('enrolment.introWithPasskey') : t('enrolment.intro')}
          </Typography>
          {step}
          <Button onClick={onSignOut} color="inherit">
            {t('shell.signOut')}
          </Button>
        </Stack>
      </Paper>
    </Box>
  );
}
