import { ErrorCodes } from '@gantry/contracts';
import type { NotificationsConfig } from '../../../../config/config.js';
import { maskSecrets } from '../../../../platform/mask-secrets.js';
import { safeFetch, SafeFetchError } from '../../../../platform/safe-fetch.js';
import {
  DeliveryError,
  type NotificationPayload,
  type OpenDestination,
  type SendResult,
} from '../../notification-payload.js';

/** What a sender needs of the server besides the destination. */
export interface SenderContext {
  /** Hosts the admin allows even when private (GANTRY_FETCH_ALLOWED_HOSTS). */
  allowedHosts: readonly string[];
  /** The instance's own SMTP settings, for an email destination without a host (trusted). */
  emailDefaults?: NotificationsConfig['email'];
  /** Per attempt (default 10 s): a slow receiver holds one delivery slot no longer. */
  timeoutMs?: number;
  now(): Date;
}

export type Sender = (dest: OpenDestination, p: NotificationPayload, ctx: SenderContext) => Promise<SendResult>;

export const DEFAULT_TIMEOUT_MS = 10_000;
/** A receiver's answer is read up to this size (chat APIs answer a few bytes). */
const MAX_ANSWER_BYTES = 64 * 1024;
/** How much of an answer a result or error keeps. */
export const RESPONSE_CHARS = 500;
const ERROR_ANSWER_CHARS = 200;

/** Statuses that say the receiver refuses this request as it is: retrying cannot help. */
const REFUSED = new Set([400, 401, 403, 404, 410]);

/** Safe-fetch failures that a retry cannot change (a refused address or URL). */
const FINAL_CODES = new Set<string>([ErrorCodes.urlInvalid, ErrorCodes.urlPrivateAddress, ErrorCodes.urlTooLarge]);

/**
 * `text` with every secret of the destination masked, and the path and query of each URL given
 * (a webhook's path often is its key even when the whole URL is not stored as a secret).
 */
export function maskFor(dest: OpenDestination, text: string, urls: readonly string[] = []): string {
  const hidden = Object.values(dest.secrets).filter(Boolean);
  for (const u of urls) {
    try {
      const parsed = new URL(u);
      const rest = `${parsed.pathname}${parsed.search}`;
      if (rest.length > 1) hidden.push(rest);
      if (parsed.search.length > 1) hidden.push(parsed.search);
    } catch {
      hidden.push(u);
    }
  }
  return maskSecrets(text, hidden);
}

/** A config value as text ('' when absent). */
export function configText(dest: OpenDestination, name: string): string {
  const v = dest.config[name];
  return typeof v === 'string' ? v.trim() : typeof v === 'number' ? String(v) : '';
}

/** A config value as a number, or undefined. */
export function configNumber(dest: OpenDestination, name: string): number | undefined {
  const v = dest.config[name];
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
  return Number.isFinite(n) ? n : undefined;
}

/** A required secret, or a final error naming the field (never its value). */
export function requiredSecret(dest: OpenDestination, name: string): string {
  const v = dest.secrets[name];
  if (!v) throw new DeliveryError(`The destination has no ${name}`, null, false);
  return v;
}

export function withoutTrailingSlash(url: string): string {
  return url.replace(/\/+$/, '');
}

/**
 * POSTs `body` through the SSRF guard (no redirect followed: the request carries the receiver's
 * key or signature, which must not go to another host). 2xx answers; any other outcome is a
 * DeliveryError whose message is masked for `dest`.
 */
export async function post(
  dest: OpenDestination,
  ctx: SenderContext,
  url: string,
  body: string,
  headers: Record<string, string>,
): Promise<SendResult> {
  const mask = (text: string) => maskFor(dest, text, [url]);
  let answer;
  try {
    answer = await safeFetch(url, {
      method: 'POST',
      headers,
      body,
      followRedirects: false,
      anyStatus: true,
      timeoutMs: ctx.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      maxBytes: MAX_ANSWER_BYTES,
      allowedHosts: ctx.allowedHosts,
    });
  } catch (e) {
    if (e instanceof SafeFetchError) throw new DeliveryError(mask(e.message), null, !FINAL_CODES.has(e.code));
    throw new DeliveryError(mask(`The request failed: ${(e as Error).message}`));
  }
  const response = mask(answer.body.slice(0, RESPONSE_CHARS));
  if (answer.status >= 200 && answer.status <= 299) return { httpStatus: answer.status, response };
  const said = response.slice(0, ERROR_ANSWER_CHARS).trim();
  // A redirect is an answer, not followed: retrying would meet the same one.
  const retryable = !REFUSED.has(answer.status) && !(answer.status >= 300 && answer.status < 400);
  throw new DeliveryError(
    `The receiver answered HTTP ${answer.status}${said ? `: ${said}` : ''}`,
    answer.status,
    retryable,
  );
}

/** POSTs JSON. */
export function postJson(
  dest: OpenDestination,
  ctx: SenderContext,
  url: string,
  value: unknown,
  headers: Record<string, string> = {},
): Promise<SendResult> {
  return post(dest, ctx, url, JSON.stringify(value), { 'content-type': 'application/json', ...headers });
}
