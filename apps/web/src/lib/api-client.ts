import { CSRF_HEADER } from '@gantry/contracts';
import { reportReachable, reportUnreachable } from './server-status';

/** A failed call: the status, its text and the server's `{ error }` body when there is one. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly statusText: string,
    readonly body: { error?: string; [k: string]: unknown } | null,
  ) {
    super(body?.error ?? `Request failed with status code ${status}`);
  }
}

type Listener = () => void;
const unauthorizedListeners = new Set<Listener>();
const restoredListeners = new Set<Listener>();

/**
 * Signs the user in again over the page (the session-recovery dialog). Answers true when the same
 * user's session is back, so the calls that failed can be sent again; false when they cannot.
 */
export type SessionRecovery = () => Promise<boolean>;

let recovery: SessionRecovery | null = null;
/** The recovery in progress: every call that meets a 401 meanwhile waits for this one dialog. */
let recovering: Promise<boolean> | null = null;
/** The console itself signed out: the 401s (and the socket's close) that follow are expected. */
let signingOut = false;

/** A 401 answers the same call again after this many sign-ins at most (then it fails). */
const MAX_RECOVERIES = 2;
/** A proxy's answers while the server behind it is down or restarting. */
const UNREACHABLE_STATUSES = new Set([502, 503, 504]);
const TOTP_REQUIRED = 'TOTP_REQUIRED';

/** The session gate listens here to send the user to the sign-in page. */
export function onUnauthorized(fn: Listener): () => void {
  unauthorizedListeners.add(fn);
  return () => unauthorizedListeners.delete(fn);
}

/** Leaves the page for the sign-in page (what is typed is lost). */
export function leaveToSignIn(): void {
  unauthorizedListeners.forEach((l) => l());
}

/**
 * Installed while a signed-in page shows: a session that ends is then recovered over the page
 * instead of leaving it. Answers the function that removes it.
 */
export function registerSessionRecovery(fn: SessionRecovery): () => void {
  recovery = fn;
  signingOut = false;
  return () => {
    if (recovery === fn) recovery = null;
  };
}

/** Called after the session came back through the recovery (the socket reconnects). */
export function onSessionRestored(fn: Listener): () => void {
  restoredListeners.add(fn);
  return () => restoredListeners.delete(fn);
}

/**
 * The session ended: sign in again over the page (one dialog however many calls ask), or, with no
 * signed-in page (or while signing out), go to the sign-in page. Answers whether it came back.
 */
export function sessionLost(): Promise<boolean> {
  if (recovering) return recovering;
  if (!recovery || signingOut) {
    leaveToSignIn();
    return Promise.resolve(false);
  }
  recovering = recovery()
    .then(
      (restored) => {
        if (restored) restoredListeners.forEach((l) => l());
        return restored;
      },
      () => false,
    )
    .finally(() => {
      recovering = null;
    });
  return recovering;
}

/** Something other than a call learned that the session ended (the socket's close code). */
export function signalUnauthorized(): void {
  void sessionLost();
}

export interface RequestOptions {
  /** Do not treat a 401 as "signed out" (the sign-in calls themselves). */
  quiet401?: boolean;
}

/** fetch, telling the server-status watcher whether the server could be reached. */
async function send(url: string, init: RequestInit): Promise<Response> {
  let res: Response;
  try {
    res = await fetch(`/api${url}`, { credentials: 'same-origin', ...init });
  } catch (e) {
    reportUnreachable();
    throw e;
  }
  // A proxy's page, not the server's own JSON answer (a 503 from Gantry itself says what failed).
  const fromServer = (res.headers.get('content-type') ?? '').includes('application/json');
  if (UNREACHABLE_STATUSES.has(res.status) && !fromServer) reportUnreachable();
  else reportReachable();
  return res;
}

/**
 * Whether a failed call is to be sent again: its 401 means the session ended, and the user
 * signed in again (as the same user) in the dialog over the page.
 */
async function recovered(status: number, body: { error?: string } | null, opts: RequestOptions, attempt: number): Promise<boolean> {
  if (status !== 401 || opts.quiet401 || body?.error === TOTP_REQUIRED || attempt >= MAX_RECOVERIES) return false;
  return sessionLost();
}

async function request<T>(method: string, url: string, body?: unknown, opts: RequestOptions = {}): Promise<T> {
  if (method === 'POST' && url === '/auth/logout' && !opts.quiet401) signingOut = true;
  const headers: Record<string, string> = {};
  if (method !== 'GET') headers[CSRF_HEADER] = '1';
  if (body !== undefined) headers['content-type'] = 'application/json';
  for (let attempt = 0; ; attempt++) {
    const res = await send(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    let data: unknown = null;
    if (text) {
      try {
        data = JSON.parse(text);
      } catch {
        data = text;
      }
    }
    if (res.ok) return data as T;
    const errBody = data && typeof data === 'object' ? (data as { error?: string }) : null;
    if (await recovered(res.status, errBody, opts, attempt)) continue;
    throw new ApiError(res.status, res.statusText, errBody);
  }
}

/** A file the server sends as an attachment: its bytes and the name from Content-Disposition. */
async function download(url: string): Promise<{ blob: Blob; fileName: string | null }> {
  for (let attempt = 0; ; attempt++) {
    const res = await send(url, {});
    if (res.ok) {
      const fileName = /filename="([^"]+)"/.exec(res.headers.get('content-disposition') ?? '')?.[1] ?? null;
      return { blob: await res.blob(), fileName };
    }
    let body: { error?: string } | null = null;
    try {
      body = (await res.json()) as { error?: string };
    } catch {
      body = null;
    }
    if (await recovered(res.status, body, {}, attempt)) continue;
    throw new ApiError(res.status, res.statusText, body);
  }
}

export const api = {
  download,
  get: <T>(url: string, opts?: RequestOptions) => request<T>('GET', url, undefined, opts),
  post: <T = void>(url: string, body?: unknown, opts?: RequestOptions) => request<T>('POST', url, body, opts),
  put: <T = void>(url: string, body?: unknown) => request<T>('PUT', url, body),
  /** `body`: for the few deletes that need proof (e.g. removing one's own two-factor method). */
  delete: <T = void>(url: string, body?: unknown) => request<T>('DELETE', url, body),
};
