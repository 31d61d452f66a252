import { SESSION_COOKIE } from '@gantry/contracts';
import type { LightMyRequestResponse } from 'fastify';
import type { Caller, TestContext } from '../test/harness.js';

/**
 * An API client as scripts and generated clients use one (a Python `requests` session with
 * `headers={'Content-Type': 'application/json', 'Authorization': 'Bearer ...'}`): the JSON
 * content type on every call, an empty body on bodyless ones, no cookie, no Origin, no CSRF header.
 */
export interface ScriptClient {
  token: string;
  send(method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, body?: unknown): Promise<LightMyRequestResponse>;
}

export const scriptHeaders = (token?: string): Record<string, string> => ({
  'content-type': 'application/json',
  accept: '*/*',
  'user-agent': 'python-requests/2.32.3',
  ...(token ? { authorization: `Bearer ${token}` } : {}),
});

/** Sends as that session does: a JSON body when given, else an empty one, with the same headers. */
export function sendAs(ctx: TestContext, headers: Record<string, string>, method: string, url: string, body?: unknown) {
  return ctx.app.inject({
    method: method as 'GET',
    url,
    headers,
    payload: body === undefined ? '' : JSON.stringify(body),
  });
}

/** Creates an API token for `who` the way such a script does (bodyless POST) and returns a client. */
export async function scriptClient(ctx: TestContext, who: Caller): Promise<ScriptClient> {
  const res = await sendAs(
    ctx,
    { ...scriptHeaders(), cookie: `${SESSION_COOKIE}=${who.cookie}` },
    'POST',
    '/api/user/tokens',
  );
  if (res.statusCode !== 201) throw new Error(`token: ${res.statusCode} ${res.body}`);
  const token = res.json<{ id: string }>().id;
  return { token, send: (method, url, body) => sendAs(ctx, scriptHeaders(token), method, url, body) };
}
