import type { CurrentUser } from '@gantry/contracts';
import { useQueryClient } from '@tanstack/react-query';
import { Suspense, useCallback, useEffect, useRef, useState } from 'react';
import { leaveToSignIn, registerSessionRecovery } from '../lib/api-client';
import { paths } from '../lib/paths';
import { keys } from '../lib/session';
import { lazyPage } from './lazy-page';
import type { SignInStep } from './sign-in-again-dialog';
import { signedInAs } from './sign-in-window';

// Not with the sign-in page's code: it loads once a signed-in page shows (rendered closed at once).
const SignInAgainDialog = lazyPage(() => import('./sign-in-again-dialog'), 'SignInAgainDialog');

/**
 * While a signed-in page shows, a session that ends (a call's 401, the socket's close) asks the
 * user to sign in again over the page rather than leaving it: the calls that failed wait and are
 * sent again after, so a form keeps what was typed and its save goes through. Someone else
 * signing in there does not get the page (nor the calls): the console starts over as them.
 */
export function SessionRecovery() {
  const qc = useQueryClient();
  const [step, setStep] = useState<SignInStep | null>(null);
  const resolver = useRef<((restored: boolean) => void) | null>(null);
  const user = qc.getQueryData<CurrentUser>(keys.user);

  const settle = useCallback((restored: boolean) => {
    resolver.current?.(restored);
    resolver.current = null;
    setStep(null);
  }, []);

  /** Whether `who` may carry on with this page (the same user); otherwise to the start page as them. */
  const carryOn = useCallback(
    (who: CurrentUser): boolean => {
      const before = qc.getQueryData<CurrentUser>(keys.user);
      if (before && before.id === who.id) {
        qc.setQueryData(keys.user, who);
        return true;
      }
      window.location.assign(paths.root);
      return false;
    },
    [qc],
  );

  useEffect(() => {
    const off = registerSessionRecovery(async () => {
      // The session may be back already (another tab signed in, or it was renewed meanwhile).
      const who = await signedInAs();
      if (who !== null && who !== 'verify') return carryOn(who) || new Promise<boolean>(() => undefined);
      return new Promise<boolean>((resolve) => {
        resolver.current = resolve;
        setStep(who === 'verify' ? 'verify' : 'login');
      });
    });
    return () => {
      off();
      resolver.current?.(false);
      resolver.current = null;
    };
  }, [carryOn]);

  const signedIn = useCallback(
    (who: CurrentUser) => {
      // Someone else: the page reloads at the start; nothing is sent again as them.
      if (carryOn(who)) settle(true);
    },
    [carryOn, settle],
  );
  const leave = useCallback(() => {
    settle(false);
    leaveToSignIn();
  }, [settle]);

  return (
    <Suspense fallback={null}>
      <SignInAgainDialog step={step} user={user} onStep={setStep} onSignedIn={signedIn} onLeave={leave} />
    </Suspense>
  );
}
