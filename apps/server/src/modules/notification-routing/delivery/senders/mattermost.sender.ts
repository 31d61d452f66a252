import { configText, postJson, requiredSecret, type Sender } from './sender.js';

/** Mattermost and Rocket.Chat incoming webhooks: `{text, channel?, username?}`. */
export const sendMattermost: Sender = (dest, p, ctx) => {
  const channel = configText(dest, 'channel');
  const username = configText(dest, 'username');
  return postJson(dest, ctx, requiredSecret(dest, 'url'), {
    text: p.message.text,
    ...(channel ? { channel } : {}),
    ...(username ? { username } : {}),
  });
};
