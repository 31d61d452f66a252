import { hasControlCharacters, type IntegrationAuthMethod } from '@gantry/contracts';
import type { Delivery } from './webhook-read.js';

/** How long a delivery id is remembered. */
export const DELIVERY_REPLAY_WINDOW_MS = 24 * 60 * 60 * 1000;

/** Longest delivery id taken (GitHub's and Bitbucket's are UUIDs, 36 characters). */
export const DELIVERY_ID_MAX = 200;

/** The header each sender puts its unique delivery id in. */
const DELIVERY_ID_HEADERS: Partial<Record<IntegrationAuthMethod, string>> = {
  github: 'X-GitHub-Delivery',
  bitbucket: 'X-Request-UUID',
};

export type DeliveryId = { kind: 'none' } | { kind: 'id'; id: string } | { kind: 'invalid'; message: string };

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
    return { kind: 'invalid', message: `${header} must be at most ${DELIVERY_ID_MAX} characters` };
  if (hasControlCharacters(id)) return { kind: 'invalid', message: `${header} must not contain control characters` };
  return { kind: 'id', id };
}
