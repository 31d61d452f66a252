import { postJson, requiredSecret, type Sender } from './sender.js';

/** Discord refuses a message longer than this. */
const DISCORD_MAX = 2000;

/** Discord webhook: `{content}`; no mention in a task's text may ping anyone. */
export const sendDiscord: Sender = (dest, p, ctx) => {
  const text = p.message.text;
  const content = text.length > DISCORD_MAX ? `${text.slice(0, DISCORD_MAX - 1)}…` : text;
  return postJson(dest, ctx, requiredSecret(dest, 'url'), { content, allowed_mentions: { parse: [] } });
};
