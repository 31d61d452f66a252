import { postJson, requiredSecret, type Sender } from './sender.js';

/** Slack incoming webhook: `{text}` (mrkdwn; the plain text reads fine). */
export const sendSlack: Sender = (dest, p, ctx) =>
  postJson(dest, ctx, requiredSecret(dest, 'url'), { text: p.message.text });
