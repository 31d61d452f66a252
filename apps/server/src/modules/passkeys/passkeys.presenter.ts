import type { Passkey } from '@gantry/contracts';
import type { PasskeyRow } from './passkeys.repository.js';

/** The API's view of a passkey: never its public key or counter. */
export function presentPasskey(row: PasskeyRow): Passkey {
  let transports: string[] = [];
  try {
    const parsed: unknown = JSON.parse(row.transports);
    if (Array.isArray(parsed)) transports = parsed.filter((t): t is string => typeof t === 'string');
  } catch {
    // Stored by this module as JSON; an unreadable value shows as none.
  }
  return { id: row.id, name: row.name, created: row.created, last_used: row.last_used, transports };
}
