import { Box, CircularProgress } from '@mui/material';
import { useQueries, useQueryClient } from '@tanstack/react-query';
import { Suspense, useEffect, useState } from 'react';
import { Outlet, useNavigate } from 'react-router';
import { ErrorCodes, Messages } from '@gantry/contracts';
import type { LoginLocationState } from '../features/auth/login-page';
import { ApiError, api, leaveToSignIn, onUnauthorized } from '../lib/api-client';
import { rememberServerVersion } from '../lib/server-status';
import { infoQuery, projectsQuery, userQuery } from '../lib/session';
import { paths } from '../lib/paths';
import { ErrorView } from './error-view';
import { lazyPage } from './lazy-page';
import { SessionRecovery } from './session-recovery';
import { loadedShell, loadShell } from './shell-loader';

// The socket client loads beside the app, not with the sign-in page.
const RealtimeBridge = lazyPage(() => import('./realtime-bridge'), 'RealtimeBridge');
// Only users the administrator requires to set up two-factor sign-in ever see this screen.
const EnrolmentScreen = lazyPage(() => import('./screens/enrolment'), 'EnrolmentScreen');

/**
 * Loads the user, system info and projects before showing the app (spec 4 "Application flow"):
 * loading shows a spinner, a 401 goes to sign-in keeping the query string (to its code step when
 * the 401 says TOTP_REQUIRED), other failures show the error view. A session that ends later is
 * signed in again over the page (SessionRecovery); only when that is given up, to sign-in.
 */
export function SessionGate() {
  const navigate = useNavigate();
  const qc = useQueryClient();
  const [user, info, projects] = useQueries({ queries: [userQuery, infoQuery, projectsQuery] });
  // The shell loads while the session is asked for, not after it answered.
  const [shellReady, setShellReady] = useState(() => loadedShell() !== null);
  const [shellError, setShellError] = useState<unknown>(null);
  useEffect(() => {
    loadShell().then(
      () => setShellReady(true),
      (e: unknown) => setShellError(e),
    );
  }, []);

  useEffect(
    () =>
      onUnauthorized(() => {
        qc.clear();
        void navigate(`${paths.login}${window.location.search}`, { replace: true });
      }),
    [navigate, qc],
  );

  // The version this page was built for: another one after a restart means a new build to load.
  const version = info.data?.version;
  useEffect(() => {
    if (version) rememberServerVersion(version);
  }, [version]);

  const failure = [user, info, projects].find((q) => q.error)?.error ?? shellError;
  const unverified = failure instanceof ApiError && failure.status === 401 && failure.body?.error === Messages.totpRequired;
  useEffect(() => {
    if (!unverified) return;
    qc.removeQueries();
    const state: LoginLocationState = { step: 'verify' };
    void navigate(`${paths.login}${window.location.search}`, { replace: true, state });
  }, [unverified, navigate, qc]);

  // The administrator requires two-factor sign-in and the user has none: only its setup is shown.
  const enrolment = failure instanceof ApiError && failure.status === 403 && failure.body?.code === ErrorCodes.totpEnrolmentRequired;
  const signOut = async () => {
    await api.post('/auth/logout', undefined, { quiet401: true }).catch(() => undefined);
    qc.clear();
    void navigate(paths.login, { replace: true });
  };

  // A 401 that came before this page listened (the entry asks for the session before rendering).
  const signedOut = failure instanceof ApiError && failure.status === 401 && !unverified;
  useEffect(() => {
    if (signedOut) leaveToSignIn();
  }, [signedOut]);

  if (failure instanceof ApiError && failure.status === 401) {
    // The effects above navigate; render nothing meanwhile.
    return null;
  }
  if (enrolment) {
    if (!user.data) return null;
    // Once a code is confirmed everything answers: asked again, the page the user was going to shows.
    return (
      <Suspense fallback={null}>
        <EnrolmentScreen user={user.data} onDone={() => void qc.invalidateQueries()} onSignOut={() => void signOut()} />
      </Suspense>
    );
  }
  if (failure) return <ErrorView error={failure} />;
  if (!user.data || !info.data || !projects.data || !shellReady) {
    return (
      <Box sx={{ display: 'grid', placeItems: 'center', height: '100vh' }} aria-busy="true">
        <CircularProgress />
      </Box>
    );
  }
  return (
    <>
      <Suspense fallback={null}>
        <RealtimeBridge />
      </Suspense>
      <SessionRecovery />
      <Outlet />
    </>
  );
}
