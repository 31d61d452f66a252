import { ErrorCodes } from '@gantry/contracts';
import i18n from 'i18next';
import { ApiError } from './api-client';
import { formatList } from './format';

/**
 * The console's own words, in the user's language, for a refusal that carries a stable `code`
 * (contracts' ErrorCodes; dictionaries' `errors.<code>`), filled in with the refusal's other
 * fields (`variable`, `limit`...; a list of texts is written as the language lists). Null for no
 * code, or one the console has no words for.
 */
export function codeText(values: { code?: unknown; [k: string]: unknown } | null | undefined): string | null {
  const code = values?.code;
  if (!values || typeof code !== 'string' || !/^[a-z_]+$/.test(code)) return null;
  const key = `errors.${code}`;
  if (!i18n.exists(key)) return null;
  const params = Object.fromEntries(
    Object.entries(values).map(([k, v]) => [k, Array.isArray(v) && v.every((x) => typeof x === 'string') ? formatList(v) : v]),
  );
  return i18n.t(key, params);
}

/**
 * Whether a failure is fetch's own: the request never got an answer (network down, server gone,
 * a chunk of the console that could not be downloaded). Browsers word it differently.
 */
export function isNetworkFailure(e: unknown): boolean {
  return e instanceof TypeError && /fetch|network|load failed/i.test(e.message);
}

/** A proxy's answers while the server behind it is down or restarting. */
const UNREACHABLE_STATUSES = new Set([502, 503, 504]);

/**
 * The text shown for a failure (spec 8): the console's words for a coded refusal; what happened
 * and what to do when the server could not be reached or failed itself (never a bare "Failed to
 * fetch" or "500"); else the server's `error` field; else the error's message unless it is the
 * generic "Request failed with status code"; a 401 shows its status and text.
 */
export function errorText(e: unknown): string {
  if (isNetworkFailure(e)) return i18n.t('app.unreachable');
  if (e instanceof ApiError) {
    // A proxy's answer while the server is away; the server's own 503 (e.g. its database is down) says what failed.
    if (UNREACHABLE_STATUSES.has(e.status) && !e.body?.error && !e.body?.code) return i18n.t('app.unreachable');
    // A failure of the server itself: what to do, rather than "Internal server error".
    const code = e.body?.code;
    // (A 5xx that names its own cause without a code, e.g. from a component in front, keeps its words.)
    const generic = code === ErrorCodes.internalError || (code === undefined && (!e.body?.error || e.body.error === 'Internal server error'));
    if (e.status >= 500 && !UNREACHABLE_STATUSES.has(e.status) && generic) return i18n.t('app.serverProblem', { status: e.status });
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
