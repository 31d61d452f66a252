import { ApiError } from './api-client';

/**
 * The text shown for a failure (spec 8): the server's `error` field; else the error's message
 * unless it is the generic "Request failed with status code"; a 401 shows its status and text.
 */
export function errorText(e: unknown): string {
  if (e instanceof ApiError) {
    if (e.body?.error) return e.body.error;
    if (e.status === 401) return `${e.status} ${e.statusText}`.trim();
    if (!e.message.startsWith('Request failed with status code')) return e.message;
    return `${e.status} ${e.statusText}`.trim();
  }
  if (e instanceof Error) return e.message;
  return String(e);
}
