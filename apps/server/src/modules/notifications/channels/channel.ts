import type { NotificationMessage } from '../notification-message.js';

export type ChannelName = 'email' | 'slack' | 'telegram' | 'teams' | 'webhook';

/** Who a message is for, as far as the project says: each channel takes what it needs. */
export interface Audience {
  /** Emails of the project members who want alerts. */
  emails: string[];
  /** The project's Telegram chat (alert_chat), overriding the configured default. */
  chat: string | null;
}

/**
 * One way out for notifications. `send` resolves false when there was nobody to send to, and
 * rejects with an error whose text names no secret (token, password, webhook URL).
 */
export interface NotificationChannel {
  readonly name: ChannelName;
  send(message: NotificationMessage, audience: Audience): Promise<boolean>;
}

/** How long one delivery may take before it is given up. */
export const DELIVERY_TIMEOUT_MS = 10_000;

/**
 * POSTs JSON with a timeout. Errors say what went wrong (status, network error code, timeout)
 * and never carry the URL, which is often the secret itself.
 */
export async function postJson(url: string, body: unknown, timeoutMs = DELIVERY_TIMEOUT_MS): Promise<Response> {
  let res: Response;
  try {
    res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (e) {
    throw new Error(describeFetchError(e, timeoutMs));
  }
  if (!res.ok) {
    const detail = await res.text().catch(() => '');
    throw new Error(`HTTP ${res.status}${detail ? `: ${detail.slice(0, 200)}` : ''}`);
  }
  await res.body?.cancel();
  return res;
}

function describeFetchError(e: unknown, timeoutMs: number): string {
  const err = e as { name?: string; cause?: { code?: string } };
  if (err.name === 'TimeoutError' || err.name === 'AbortError') return `no answer within ${timeoutMs / 1000} s`;
  return `request failed${err.cause?.code ? ` (${err.cause.code})` : ''}`;
}
