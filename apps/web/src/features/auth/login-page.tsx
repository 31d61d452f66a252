import HelpOutlineIcon from '@mui/icons-material/HelpOutlined';
import { Alert, Box, Button, Card, CardContent, Link, Stack, TextField, Typography } from '@mui/material';
import { useQuery } from '@tanstack/react-query';
import { useState, type FormEvent, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Navigate, useLocation, useNavigate } from 'react-router';
import { LanguageButton } from '../../components/language-menu';
import { codeText, errorText } from '../../lib/error-text';
import { abandonSession, loginInfoQuery, signedInQuery, useLogin } from './api/auth-api';
import { LoginHelpDialog } from './components/login-help-dialog';
import { ProviderButtons } from './components/provider-buttons';
import { VerifyForm } from './components/verify-form';

type Step = 'login' | 'verify' | 'recovery';

/** Navigation state that opens the page on the code step (the app found a session waiting for it). */
export interface LoginLocationState {
  step?: 'verify';
}

export interface LoginPageProps {
  /** Passwordless sign-in (passkeys), given by the app: `done` leads into the console. */
  passkeySignIn?: (done: () => void) => ReactNode;
  /**
   * Another way through the second step (a passkey), shown beside the code field, or alone
   * (`only`) for a user who has passkeys and no authenticator app.
   */
  passkeyStep?: (done: () => void, only: boolean) => ReactNode;
}

/** Sign-in: password form (when allowed), provider buttons, then the second step if asked. */
export function LoginPage({ passkeySignIn, passkeyStep }: LoginPageProps = {}) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const location = useLocation();
  const info = useQuery(loginInfoQuery).data;
  const login = useLogin();
  const [step, setStep] = useState<Step>((location.state as LoginLocationState | null)?.step ?? 'login');
  // Already signed in (a bookmark, the back button): into the app rather than the form.
  const signedIn = useQuery({ ...signedInQuery, enabled: step === 'login' }).isSuccess;
  const [auth, setAuth] = useState('');
  const [password, setPassword] = useState('');
  const [touched, setTouched] = useState(false);
  const [help, setHelp] = useState(false);
  const query = new URLSearchParams(location.search);
  // A failed external sign-in comes back here with ?error= (English), and ?code= and its params.
  const providerError = query.get('error');
  const providerText = codeText(Object.fromEntries(query)) ?? t('auth.providerError', { error: providerError });
  const redirect = query.get('redirect') ?? (query.get('new_project') === 'premium' ? '/project/premium' : null);
  const enter = () => void navigate(`/${location.search}`, { replace: true });
  const switchStep = (next: Step) => {
    // Back to the password: the session waiting for the code is of no more use.
    if (next === 'login') {
      void abandonSession();
      login.reset();
      void navigate(`${location.pathname}${location.search}`, { replace: true, state: null });
    }
    setStep(next);
  };

  const submit = (e: FormEvent) => {
    e.preventDefault();
    setTouched(true);
    if (!auth.trim() || !password) return;
    login.mutate(
      { auth: auth.trim(), password },
      {
        onSuccess: (next) => (next === 'verify' ? setStep('verify') : enter()),
      },
    );
  };

  if (signedIn) return <Navigate to={`/${location.search}`} replace />;
  return (
    <Box component="main" sx={{ display: 'grid', placeItems: 'center', minHeight: '100vh', p: 2, bgcolor: 'background.default' }}>
      <Card sx={{ width: '100%', maxWidth: 400 }} variant="outlined">
        <CardContent sx={{ p: 4 }}>
          <Typography variant="h5" component="h1" sx={{ mb: 3, fontWeight: 600 }}>
            {step === 'login' ? t('auth.title') : step === 'verify' ? t('auth.verifyTitle') : t('auth.recoveryTitle')}
          </Typography>
          {step === 'login' ? (
            <Stack spacing={2}>
              {login.error || providerError ? (
                <Alert severity="error" role="alert">
                  {login.error ? errorText(login.error) : providerText}
                </Alert>
              ) : null}
              {info?.login_with_password !== false ? (
                <Stack component="form" spacing={2} onSubmit={submit} noValidate>
                  <TextField
                    label={t('auth.username')}
                    value={auth}
                    onChange={(e) => setAuth(e.target.value)}
                    autoComplete="username"
                    autoFocus
                    error={touched && !auth.trim()}
                    helperText={touched && !auth.trim() ? t('auth.usernameRequired') : ' '}
                  />
                  <TextField
                    label={t('auth.password')}
                    type="password"
                    value={password}
                    onChange={(e) => setPassword(e.target.value)}
                    autoComplete="current-password"
                    error={touched && !password}
                    helperText={touched && !password ? t('auth.passwordRequired') : ' '}
                  />
                  <Button type="submit" variant="contained" size="large" disabled={login.isPending}>
                    {t('auth.signIn')}
                  </Button>
                </Stack>
              ) : null}
              {info?.login_with_password !== false ? passkeySignIn?.(enter) : null}
              {info ? <ProviderButtons providers={info.oidc_providers} redirect={redirect} /> : null}
              <Link component="button" type="button" onClick={() => setHelp(true)} sx={{ alignSelf: 'center', display: 'inline-flex', gap: 0.5, alignItems: 'center' }}>
                <HelpOutlineIcon fontSize="small" />
                {t('auth.help')}
              </Link>
            </Stack>
          ) : (
            <VerifyForm mode={step} allowRecovery={!!info?.auth_methods.totp.allow_recovery} onDone={enter} onSwitch={switchStep} passkeyStep={passkeyStep} />
          )}
          <Box sx={{ mt: 2, display: 'flex', justifyContent: 'center' }}>
            <LanguageButton />
          </Box>
        </CardContent>
      </Card>
      <LoginHelpDialog open={help} onClose={() => setHelp(false)} />
    </Box>
  );
}
