import { configText, postJson, requiredSecret, withoutTrailingSlash, type Sender } from './sender.js';

const TELEGRAM_API = 'https://api.telegram.org';

/** Telegram Bot API `sendMessage`; the token is in the path, so every error is masked for it. */
export const sendTelegram: Sender = (dest, p, ctx) => {
  const token = requiredSecret(dest, 'token');
  const api = withoutTrailingSlash(configText(dest, 'api_url') || TELEGRAM_API);
  return postJson(dest, ctx, `${api}/bot${token}/sendMessage`, {
    chat_id: configText(dest, 'chat_id'),
    text: p.message.text,
    disable_web_page_preview: true,
  });
};
