import { DeliveryError } from '../../notification-payload.js';
import { isFailureEvent } from '../message-words.js';
import { configNumber, configText, postJson, requiredSecret, withoutTrailingSlash, type Sender } from './sender.js';

/** Gotify `POST /message` with the application token in `X-Gotify-Key`. */
export const sendGotify: Sender = (dest, p, ctx) => {
  const url = configText(dest, 'url');
  if (!url) throw new DeliveryError('The destination has no url', null, false);
  const priority = configNumber(dest, 'priority') ?? (isFailureEvent(p.event) ? 8 : 5);
  const body = { title: p.message.title, message: p.message.text, priority };
  return postJson(dest, ctx, `${withoutTrailingSlash(url)}/message`, body, {
    'X-Gotify-Key': requiredSecret(dest, 'token'),
  });
};
