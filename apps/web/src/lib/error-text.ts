import i18n from 'i18next';
import { ApiError } from './api-client';

/**
 * The console's own words, in the user's language, for a refusal that carries a stable `code`
 * (contracts' ErrorCodes; dictionaries' `errors.<code>`), filled in with the refusal's other
 * fields (`variable`, `limit`...). Null for no code, or one the console has no words for.
 */
export function codeText(values: { code?: unknown; [k: string]: unknown } | null | undefined): string | null {
  const code = values?.code;
  if (typeof code !== 'string' || !/^[a-z_]+$/.test(code)) return null;
  const key = `errors.${code}`;
  return i18n.exists(key) ? i18n.t(key, { ...values }) : null;
}

/**
 * The text shown for a failure (spec 8): the console's words for a coded refusal; else the
 * server's `error` field; else the error's message unless it is the generic "Request failed with
 * status code"; a 401 shows its status and text.
 */
export function errorText(e: unknown): string {
  if (e instanceof ApiError) {
    const coded = codeText(e.body);
    if (coded) return coded;
    if (e.body?.error) return e.body.error;
    if (e.status === 401) return `${e.status} ${e.statusText}`.trim();
    if (!e.message.startsWith('Request failed with status code')) return e.message;
    return `${e.status} ${e.statusText}`.trim();
  }
  if (e instanceof Error) return e.message;
  return String(e);
}
