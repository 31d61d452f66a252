import type { NotificationPayload } from '../../notification-payload.js';
import { clickUrl, isFailureEvent } from '../message-words.js';
import { configNumber, configText, post, withoutTrailingSlash, type Sender } from './sender.js';

const NTFY = 'https://ntfy.sh';

/** ntfy: the text is the body, the rest goes in headers (ntfy's documented publish API). */
export const sendNtfy: Sender = (dest, p, ctx) => {
  const base = withoutTrailingSlash(configText(dest, 'url') || NTFY);
  const topic = encodeURIComponent(configText(dest, 'topic'));
  const priority = configNumber(dest, 'priority') ?? (isFailureEvent(p.event) ? 4 : 3);
  const headers: Record<string, string> = {
    'content-type': 'text/plain; charset=utf-8',
    Title: headerValue(p.message.title),
    Priority: String(priority),
    Tags: TAGS[p.event],
  };
  const click = clickUrl(p);
  if (click) headers.Click = headerValue(click);
  const token = dest.secrets.token;
  if (token) headers.Authorization = `Bearer ${token}`;
  return post(dest, ctx, `${base}/${topic}`, p.message.text, headers);
};

/** Emoji short codes ntfy shows before the title. */
const TAGS: Record<NotificationPayload['event'], string> = {
  task_failed: 'x',
  task_succeeded: 'white_check_mark',
  task_fixed: 'white_check_mark',
  task_started: 'arrow_forward',
  task_stopped: 'stop_button',
  approval_needed: 'raised_hand',
  long_running: 'hourglass',
  drift: 'warning',
  runner_offline: 'warning',
  digest: 'clipboard',
  test: 'bell',
};

/**
 * One line of ASCII, as an HTTP header must be; other text as RFC 2047 (`=?UTF-8?B?…?=`), which
 * ntfy decodes.
 */
function headerValue(text: string): string {
  const line = text.replace(/[\r\n]+/g, ' ');
  if (/^[\x20-\x7e]*$/.test(line)) return line;
  return `=?UTF-8?B?${Buffer.from(line, 'utf8').toString('base64')}?=`;
}
