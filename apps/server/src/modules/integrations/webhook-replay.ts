import { createHash } from 'node:crypto';
import { ErrorCodes, hasControlCharacters, type IntegrationAuthMethod } from '@gantry/contracts';
import type { ErrorDetails } from '../../platform/errors.js';
import { hmacTimestampOf, signedMaterial } from './webhook-auth.js';
import type { Delivery } from './webhook-read.js';

/** How long a delivery id, or a delivery body's hash, is remembered. */
export const DELIVERY_REPLAY_WINDOW_MS = 24 * 60 * 60 * 1000;

/** Longest delivery id taken (GitHub's and Bitbucket's are UUIDs, 36 characters). */
export const DELIVERY_ID_MAX = 200;

/** The header each sender puts its unique delivery id in. */
const DELIVERY_ID_HEADERS: Partial<Record<IntegrationAuthMethod, string>> = {
  github: 'X-GitHub-Delivery',
  bitbucket: 'X-Request-UUID',
};

export type DeliveryId =
  { kind: 'none' } | { kind: 'id'; id: string } | { kind: 'invalid'; message: string; details: ErrorDetails };

/**
 * The delivery id an integration with this auth method goes by: none for methods whose senders
 * have no such id, or when the header is missing or empty; invalid when it is too long or holds
 * control characters (the receiver answers 400 rather than taking it unchecked).
 */
export function deliveryIdOf(d: Delivery, method: IntegrationAuthMethod): DeliveryId {
  const header = DELIVERY_ID_HEADERS[method];
  if (!header) return { kind: 'none' };
  const id = d.header(header)?.trim();
  if (!id) return { kind: 'none' };
  if (id.length > DELIVERY_ID_MAX)
    return {
      kind: 'invalid',
      message: `${header} must be at most ${DELIVERY_ID_MAX} characters`,
      details: { code: ErrorCodes.headerTooLong, header, max: DELIVERY_ID_MAX },
    };
  if (hasControlCharacters(id)) {
    return {
      kind: 'invalid',
      message: `${header} must not contain control characters`,
      details: { code: ErrorCodes.headerControlCharacters, header },
    };
  }
  return { kind: 'id', id };
}

/**
 * The SHA-256 (hex) a delivery's content is remembered by, or null for methods whose deliveries
 * are not deduplicated by content:
 * - github, bitbucket: the raw body. The delivery id header is not signed, so a captured delivery
 *   replayed with another id (or none) is still recognised; two real deliveries never share a body
 *   (GitHub's and Bitbucket's bodies carry the commits, the hook, the time);
 * - hmac with X-Gantry-Timestamp: the signed material, `<timestamp>.<body>`: the same signed
 *   delivery within its 5 minutes is a replay. Without the header (no way to tell a replay from a
 *   sender posting the same body again on purpose) and for other methods: null.
 * Remembered per integration (the key is the integration id and this hash).
 */
export function bodyHashOf(d: Delivery, method: IntegrationAuthMethod): string | null {
  if (method === 'github' || method === 'bitbucket') return sha256Hex(d.body);
  if (method !== 'hmac') return null;
  const stamp = hmacTimestampOf(d);
  return stamp === undefined ? null : sha256Hex(signedMaterial(stamp, d.body));
}

function sha256Hex(data: Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}
