import { CSRF_HEADER, SESSION_COOKIE } from '@gantry/contracts';
import type { LightMyRequestResponse } from 'fastify';

// Structural types rather than imports of the test harness: this file is not a test, so the
// production build (which leaves src/test out) compiles it too.
/** A signed-in console user (the harness's `Caller`). */
export interface Session {
  cookie: string;
  post(url: string, body?: unknown): Promise<LightMyRequestResponse>;
}
/** The running app (the harness's `TestContext`). */
export interface Injectable {
  app: {
    inject(options: {
      method: Method;
      url: string;
      headers: Record<string, string>;
      cookies?: Record<string, string>;
      payload?: string;
    }): Promise<LightMyRequestResponse>;
  };
}

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';
/** How a Semaphore client authenticates: the console's cookie session, or an API token. */
export type Credentials = { caller: Session } | { token: string };

/**
 * Sends a request the way Semaphore's console (axios) and API scripts do: JSON bodies with
 * `content-type: application/json`, `accept: application/json, text/plain, *\/*`; the console with
 * its session cookie (and Gantry's CSRF header), scripts with `authorization: Bearer <token>`.
 */
export function semaphoreRequest(
  ctx: Injectable,
  who: Credentials,
  method: Method,
  url: string,
  body?: unknown,
): Promise<LightMyRequestResponse> {
  const headers: Record<string, string> = { accept: 'application/json, text/plain, */*' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if ('token' in who) headers.authorization = `Bearer ${who.token}`;
  else if (method !== 'GET') headers[CSRF_HEADER] = '1';
  return ctx.app.inject({
    method,
    url,
    headers,
    ...('caller' in who ? { cookies: { [SESSION_COOKIE]: who.caller.cookie } } : {}),
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });
}

/** An API token of the signed-in user, as `POST /api/user/tokens` gives it. */
export async function apiToken(caller: Session): Promise<string> {
  const res = await caller.post('/api/user/tokens');
  if (res.statusCode !== 201) throw new Error(`token: ${res.statusCode} ${res.body}`);
  return res.json<{ id: string }>().id;
}
