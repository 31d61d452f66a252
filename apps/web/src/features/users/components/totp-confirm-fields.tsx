import { ErrorCodes, VERIFICATION_CODE_LENGTH, type TotpCreated } from '@gantry/contracts';
import { TextField } from '@mui/material';
import { useTranslation } from 'react-i18next';
import { FormError } from '../../../components/form-error';
import { ApiError } from '../../../lib/api-client';
import { errorText } from '../../../lib/error-text';
import { TotpSetupKey } from './totp-setup-key';

/** Whether the server refused a field with one of these codes (shown at the field, not atop the form). */
export function refusedWith(error: unknown, codes: string[]): boolean {
  return error instanceof ApiError && codes.includes(String(error.body?.code));
}

/**
 * The second step of turning two-factor sign-in on, wherever it is done (the user's own dialog,
 * the enrolment screen an administrator's requirement shows): the method's QR code and setup key,
 * and the field for the app's first code, with the server's refusal of that code at the field.
 */
export function TotpConfirmFields({
  userId,
  pending,
  code,
  onCode,
  error,
  touched,
}: {
  userId: number;
  pending: TotpCreated;
  code: string;
  /** A new value typed: the last refusal no longer applies. */
  onCode(code: string): void;
  /** The confirmation's last failure. */
  error: unknown;
  /** Submitted once: an empty field is then said to be required. */
  touched: boolean;
}) {
  const { t } = useTranslation();
  const refused = refusedWith(error, [ErrorCodes.totpCodeIncorrect]);
  const missing = touched && !code.trim();
  const helper = missing ? t('users.totpCodeRequired') : refused ? errorText(error) : t('users.totpCodeHelp');
  return (
    <>
      {refused ? null : <FormError error={error} />}
      <TotpSetupKey userId={userId} totpId={pending.id} secret={pending.secret ?? ''} />
      <TextField
        label={t('auth.verifyCode')}
        value={code}
        onChange={(e) => onCode(e.target.value)}
        autoComplete="one-time-code"
        required
        error={missing || refused}
        helperText={helper}
        slotProps={{ htmlInput: { inputMode: 'numeric', maxLength: VERIFICATION_CODE_LENGTH + 2 } }}
      />
    </>
  );
}
