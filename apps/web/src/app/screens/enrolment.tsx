import type { ComponentProps } from 'react';
import { AddPasskeyForm } from '../../features/passkeys/components/add-passkey-form';
import { EnrolmentPage } from '../../features/users/enrolment-page';

/**
 * The two-factor enrolment screen with passkeys: adding one meets the administrator's requirement
 * as an authenticator app does, and leads on into the console.
 */
export function EnrolmentScreen(props: Omit<ComponentProps<typeof EnrolmentPage>, 'passkeyEnrol'>) {
  return <EnrolmentPage {...props} passkeyEnrol={(done) => <AddPasskeyForm onAdded={done} stacked />} />;
}
