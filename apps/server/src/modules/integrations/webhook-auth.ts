import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { IntegrationAuthMethod } from '@gantry/contracts';
import type { Delivery } from './webhook-read.js';

/** The secret of a login with password key: the password, and for basic auth the login too. */
export interface WebhookSecret {
  login: string;
  password: string;
}

/**
 * Whether a delivery proves it comes from the configured sender:
 * - github: `X-Hub-Signature-256: sha256=<hex HMAC-SHA256(secret, body)>`
 * - bitbucket: `X-Hub-Signature: sha256=<hex HMAC-SHA256(secret, body)>` (Bitbucket Cloud)
 * - hmac: the `header` holds the hex HMAC-SHA256, with or without a `sha256=` prefix, of the body;
 *   or, when the sender adds `X-Gantry-Timestamp: <Unix seconds>`, of `<timestamp>.<body>`, and
 *   the timestamp must be at most HMAC_TIMESTAMP_MAX_AGE_S old and HMAC_TIMESTAMP_MAX_AHEAD_S ahead
 *   of `now` (a captured delivery cannot be replayed later)
 * - token: the `header` holds the secret itself
 * - basic: `Authorization: Basic base64(login:password)`
 * Every comparison is of SHA-256 digests with timingSafeEqual, so neither time nor length says
 * how close a guess was. A method that needs a secret fails without one (or with an empty one).
 */
export function authenticate(
  d: Delivery,
  method: IntegrationAuthMethod,
  header: string | null,
  secret: WebhookSecret | null,
  now: Date = new Date(),
): boolean {
  if (method === 'none') return true;
  if (!secret?.password) return false;
  switch (method) {
    case 'github':
      return sameText(d.header('x-hub-signature-256'), `sha256=${hmacHex(secret.password, d.body)}`);
    case 'bitbucket':
      return sameText(d.header('x-hub-signature'), `sha256=${hmacHex(secret.password, d.body)}`);
    case 'hmac': {
      const given = header ? d.header(header)?.trim() : undefined;
      const stamp = hmacTimestampOf(d);
      if (stamp === undefined)
        return sameText(given?.replace(/^sha256=/i, '').toLowerCase(), hmacHex(secret.password, d.body));
      const signed = sameText(
        given?.replace(/^sha256=/i, '').toLowerCase(),
        hmacHex(secret.password, signedMaterial(stamp, d.body)),
      );
      return signed && isFresh(stamp, now);
    }
    case 'token':
      return sameText(header ? d.header(header) : undefined, secret.password);
    case 'basic': {
      const m = d.header('authorization')?.match(/^basic\s+([A-Za-z0-9+/=_-]+)\s*$/i);
      const given = m?.[1] ? Buffer.from(m[1], 'base64').toString('utf8') : undefined;
      return sameText(given, `${secret.login}:${secret.password}`);
    }
  }
}

/** The optional header of the hmac method that puts the time of sending under the signature. */
export const HMAC_TIMESTAMP_HEADER = 'X-Gantry-Timestamp';
/** A timestamped hmac delivery older than this (seconds) is refused: a replay, or held up too long. */
export const HMAC_TIMESTAMP_MAX_AGE_S = 5 * 60;
/** How far ahead of the server's clock a timestamp may be (the sender's clock may run ahead). */
export const HMAC_TIMESTAMP_MAX_AHEAD_S = 60;

/**
 * The delivery's X-Gantry-Timestamp as it was sent (the signed text), undefined when absent. A
 * header that is there but not Unix seconds is kept as it is: it then fails `isFresh`.
 */
export function hmacTimestampOf(d: Delivery): string | undefined {
  return d.header(HMAC_TIMESTAMP_HEADER)?.trim();
}

/** What a timestamped hmac signature is over: `<timestamp>.<raw body>`. */
export function signedMaterial(stamp: string, body: Buffer): Buffer {
  return Buffer.concat([Buffer.from(`${stamp}.`, 'utf8'), body]);
}

function isFresh(stamp: string, now: Date): boolean {
  if (!/^\d{1,12}$/.test(stamp)) return false;
  const age = Math.floor(now.getTime() / 1000) - Number(stamp);
  return age <= HMAC_TIMESTAMP_MAX_AGE_S && age >= -HMAC_TIMESTAMP_MAX_AHEAD_S;
}

function hmacHex(secret: string, body: Buffer): string {
  return createHmac('sha256', secret).update(body).digest('hex');
}

function sameText(given: string | undefined, expected: string): boolean {
  // Hash both sides even when nothing was given, so a missing header costs the same time.
  const a = createHash('sha256')
    .update(given ?? '')
    .digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b) && given !== undefined;
}
