import type { TFunction } from 'i18next';
import { ApiError } from '../../../lib/api-client';
import { errorText } from '../../../lib/error-text';

/**
 * The text for a failed passkey ceremony: the server's refusal, or the browser's (the person
 * cancelled, the request timed out, no passkey of this site on the device) in the user's words.
 */
export function passkeyErrorText(e: unknown, t: TFunction): string {
  if (e instanceof ApiError) return errorText(e);
  const name = e instanceof Error ? e.name : '';
  const code = (e as { code?: unknown } | null)?.code;
  if (name === 'NotAllowedError' || name === 'AbortError' || code === 'ERROR_CEREMONY_ABORTED')
    return t('passkeys.cancelled');
  return errorText(e);
}
