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
 * - hmac: the `header` holds the hex HMAC-SHA256, with or without a `sha256=` prefix
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
      return sameText(given?.replace(/^sha256=/i, '').toLowerCase(), hmacHex(secret.password, d.body));
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
