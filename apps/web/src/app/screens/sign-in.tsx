import { LoginPage } from '../../features/auth/login-page';
import { PasskeySignInButton, PasskeyStepButton } from '../../features/passkeys/components/passkey-buttons';

/** The sign-in page with passkeys: passwordless sign-in, and a passkey for the second step. */
export function SignInPage() {
  return (
    <LoginPage
      passkeySignIn={(done) => <PasskeySignInButton onDone={done} />}
      passkeyStep={(done, only) => <PasskeyStepButton onDone={done} only={only} />}
    />
  );
}
