import { NOTIFICATION_SIGNATURE_HEADER } from '@gantry/contracts';
import { renderPayloadTemplate } from '../../payload-template.js';
import { signatureHeader } from '../signature.js';
import { configText, post, requiredSecret, type Sender } from './sender.js';

/**
 * The generic webhook: the payload as JSON (or the destination's payload template rendered),
 * signed with the destination's secret so a receiver can check it came from here, unchanged.
 */
export const sendWebhook: Sender = (dest, p, ctx) => {
  const url = requiredSecret(dest, 'url');
  const secret = requiredSecret(dest, 'secret');
  const template = configText(dest, 'payload_template');
  const body = template ? renderPayloadTemplate(template, p) : JSON.stringify(p);
  const now = Math.floor(ctx.now().getTime() / 1000);
  return post(dest, ctx, url, body, {
    'content-type': configText(dest, 'content_type') || 'application/json',
    'User-Agent': 'Gantry',
    'X-Gantry-Event': p.event,
    'X-Gantry-Delivery': p.id,
    [NOTIFICATION_SIGNATURE_HEADER]: signatureHeader(secret, body, now),
  });
};
