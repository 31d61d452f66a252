import { CSRF_HEADER } from '@gantry/contracts';

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

/** The app shell listens here to send the user to sign-in on any 401. */
export function onUnauthorized(fn: Listener): () => void {
  unauthorizedListeners.add(fn);
  return () => unauthorizedListeners.delete(fn);
}

/** Something other than a call learned that the user is signed out (the socket's close code). */
export function signalUnauthorized(): void {
  unauthorizedListeners.forEach((l) => l());
}

export interface RequestOptions {
  /** Do not treat a 401 as "signed out" (the sign-in call itself). */
  quiet401?: boolean;
}

async function request<T>(method: string, url: string, body?: unknown, opts: RequestOptions = {}): Promise<T> {
  const headers: Record<string, string> = {};
  if (method !== 'GET') headers[CSRF_HEADER] = '1';
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`/api${url}`, {
    method,
    headers,
    credentials: 'same-origin',
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let data: unknown = null;
  if (text) {
    try {
      data = JSON.parse(text);
    } catch {
      data = text;
    }
  }
  if (!res.ok) {
    const errBody = data && typeof data === 'object' ? (data as { error?: string }) : null;
    if (res.status === 401 && !opts.quiet401 && errBody?.error !== 'TOTP_REQUIRED') unauthorizedListeners.forEach((l) => l());
    throw new ApiError(res.status, res.statusText, errBody);
  }
  return data as T;
}

/** A file the server sends as an attachment: its bytes and the name from Content-Disposition. */
async function download(url: string): Promise<{ blob: Blob; fileName: string | null }> {
  const res = await fetch(`/api${url}`, { credentials: 'same-origin' });
  if (!res.ok) {
    let body: { error?: string } | null = null;
    try {
      body = (await res.json()) as { error?: string };
    } catch {
      body = null;
    }
    if (res.status === 401) unauthorizedListeners.forEach((l) => l());
    throw new ApiError(res.status, res.statusText, body);
  }
  const fileName = /filename="([^"]+)"/.exec(res.headers.get('content-disposition') ?? '')?.[1] ?? null;
  return { blob: await res.blob(), fileName };
}

export const api = {
  download,
  get: <T>(url: string, opts?: RequestOptions) => request<T>('GET', url, undefined, opts),
  post: <T = void>(url: string, body?: unknown, opts?: RequestOptions) => request<T>('POST', url, body, opts),
  put: <T = void>(url: string, body?: unknown) => request<T>('PUT', url, body),
  /** `body`: for the few deletes that need proof (e.g. removing one's own two-factor method). */
  delete: <T = void>(url: string, body?: unknown) => request<T>('DELETE', url, body),
};
