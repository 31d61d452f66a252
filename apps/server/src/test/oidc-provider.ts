import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { afterAll, beforeAll } from 'vitest';
import { SESSION_COOKIE } from '@gantry/contracts';
import { OIDC_FLOW_COOKIE } from '../modules/auth/oidc.routes.js';
import { callerFor, type Caller, type TestContext } from './harness.js';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** Claims of the person who "signs in" at the fake provider. */
export interface FakeOidcUser {
  sub: string;
  preferred_username?: string;
  email?: string;
  /** Whether the provider vouches for the email (a boolean by the standard; some send "true"). */
  email_verified?: boolean | string;
  name?: string;
  /** Group claims for group mapping: a flat one and Keycloak's nested one. */
  groups?: string[] | string;
  realm_access?: { roles: string[] };
}

/** Ways to misbehave on the next token answer (each is used once, then forgotten). */
export interface Misbehaviour {
  /** Signs the id_token, then changes its payload: the signature no longer matches. */
  tamperIdToken?: boolean;
  /** Puts this nonce in the id_token instead of the one the client sent. */
  nonce?: string;
  /** Remembers a different PKCE challenge than the one sent, so the verifier will not match. */
  wrongChallenge?: boolean;
  /** Leaves these claims out of the id_token (they stay in /userinfo). */
  omitFromIdToken?: (keyof FakeOidcUser)[];
}

export interface FakeOidcProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Who signs in next; the authorize endpoint approves at once. */
  user: FakeOidcUser;
  /** Applied to the next authorization only. */
  misbehave: Misbehaviour;
  /** Token requests refused so far (bad client, code, verifier). */
  refusals: string[];
  close(): Promise<void>;
}

interface PendingCode {
  clientId: string;
  redirectUri: string;
  nonce: string | undefined;
  challenge: string;
  user: FakeOidcUser;
  misbehave: Misbehaviour;
}

const b64url = (b: Buffer | string) => Buffer.from(b).toString('base64url');

/**
 * A real, minimal OpenID Connect provider on 127.0.0.1 for tests: discovery, JWKS (RS256),
 * an authorize endpoint that approves at once, a token endpoint that checks client secret,
 * code, redirect_uri and PKCE (S256), and userinfo. `port` 0 picks a free one.
 */
export async function startOidcProvider(
  opts: { port?: number; clientId?: string; clientSecret?: string } = {},
): Promise<FakeOidcProvider> {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const kid = b64url(randomBytes(8));
  const jwk = { ...publicKey.export({ format: 'jwk' }), kid, use: 'sig', alg: 'RS256' };
  const codes = new Map<string, PendingCode>();
  const accessTokens = new Map<string, FakeOidcUser>();
  const server = http.createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', resolve);
  });
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const provider: FakeOidcProvider = {
    issuer,
    clientId: opts.clientId ?? 'gantry-test',
    clientSecret: opts.clientSecret ?? 'test-client-secret',
    user: { sub: 'sub-1', preferred_username: 'extuser', email: 'extuser@idp.example', name: 'Ext User' },
    misbehave: {},
    refusals: [],
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };

  const json = (res: http.ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
    res.end(JSON.stringify(body));
  };
  const refuse = (res: http.ServerResponse, why: string) => {
    provider.refusals.push(why);
    json(res, 400, { error: 'invalid_grant', error_description: why });
  };

  server.on('request', (req, res) => {
    const url = new URL(req.url ?? '/', issuer);
    if (url.pathname === '/.well-known/openid-configuration') {
      return json(res, 200, {
        issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        userinfo_endpoint: `${issuer}/userinfo`,
        jwks_uri: `${issuer}/jwks`,
        response_types_supported: ['code'],
        subject_types_supported: ['public'],
        id_token_signing_alg_values_supported: ['RS256'],
        code_challenge_methods_supported: ['S256'],
        token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
        scopes_supported: ['openid', 'profile', 'email'],
      });
    }
    if (url.pathname === '/jwks') return json(res, 200, { keys: [jwk] });
    if (url.pathname === '/authorize') {
      const q = url.searchParams;
      const redirectUri = q.get('redirect_uri');
      if (q.get('client_id') !== provider.clientId || !redirectUri || q.get('response_type') !== 'code') {
        return json(res, 400, { error: 'invalid_request' });
      }
      if (q.get('code_challenge_method') !== 'S256' || !q.get('code_challenge'))
        return json(res, 400, { error: 'invalid_request', error_description: 'PKCE S256 required' });
      const code = b64url(randomBytes(16));
      const misbehave = provider.misbehave;
      provider.misbehave = {};
      codes.set(code, {
        clientId: provider.clientId,
        redirectUri,
        nonce: q.get('nonce') ?? undefined,
        challenge: misbehave.wrongChallenge ? b64url(randomBytes(32)) : q.get('code_challenge')!,
        user: { ...provider.user },
        misbehave,
      });
      const back = new URL(redirectUri);
      back.searchParams.set('code', code);
      const state = q.get('state');
      if (state !== null) back.searchParams.set('state', state);
      res.writeHead(302, { location: back.href });
      return res.end();
    }
    if (url.pathname === '/token' && req.method === 'POST') {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        const form = new URLSearchParams(body);
        let [id, secret] = [form.get('client_id'), form.get('client_secret')];
        const basic = req.headers.authorization?.match(/^Basic (.+)$/)?.[1];
        if (basic) {
          const [u, p] = Buffer.from(basic, 'base64').toString().split(':');
          [id, secret] = [decodeURIComponent(u ?? ''), decodeURIComponent(p ?? '')];
        }
        if (id !== provider.clientId || secret !== provider.clientSecret) {
          provider.refusals.push('client authentication');
          return json(res, 401, { error: 'invalid_client' });
        }
        const pending = codes.get(form.get('code') ?? '');
        codes.delete(form.get('code') ?? '');
        if (form.get('grant_type') !== 'authorization_code' || !pending) return refuse(res, 'unknown code');
        if (pending.redirectUri !== form.get('redirect_uri')) return refuse(res, 'redirect_uri mismatch');
        const verifier = form.get('code_verifier') ?? '';
        if (b64url(createHash('sha256').update(verifier).digest()) !== pending.challenge)
          return refuse(res, 'PKCE verifier mismatch');
        const accessToken = b64url(randomBytes(24));
        accessTokens.set(accessToken, pending.user);
        json(res, 200, {
          access_token: accessToken,
          token_type: 'Bearer',
          expires_in: 300,
          id_token: idToken(pending),
        });
      });
      return;
    }
    if (url.pathname === '/userinfo') {
      const token = req.headers.authorization?.match(/^Bearer (.+)$/)?.[1];
      const user = token ? accessTokens.get(token) : undefined;
      if (!user) return json(res, 401, { error: 'invalid_token' });
      return json(res, 200, user);
    }
    json(res, 404, { error: 'not_found' });
  });

  function idToken(pending: PendingCode): string {
    const now = Math.floor(Date.now() / 1000);
    const claims: Record<string, unknown> = { ...pending.user };
    for (const k of pending.misbehave.omitFromIdToken ?? []) delete claims[k];
    const payload = {
      ...claims,
      iss: issuer,
      aud: pending.clientId,
      iat: now,
      exp: now + 300,
      ...(pending.nonce === undefined && !pending.misbehave.nonce
        ? {}
        : { nonce: pending.misbehave.nonce ?? pending.nonce }),
    };
    const jws = signJws({ alg: 'RS256', typ: 'JWT', kid }, payload, privateKey);
    if (!pending.misbehave.tamperIdToken) return jws;
    const [h, , s] = jws.split('.');
    return [h, b64url(JSON.stringify({ ...payload, preferred_username: 'admin' })), s].join('.');
  }

  return provider;
}

function signJws(header: object, payload: object, key: KeyObject): string {
  const input = `${b64url(JSON.stringify(header))}.${b64url(JSON.stringify(payload))}`;
  return `${input}.${b64url(sign('sha256', Buffer.from(input), key))}`;
}

/**
 * A fake provider for the enclosing describe: started before its tests, closed after them.
 * Answers a getter, since the provider exists only once the tests start.
 */
export function useOidcProvider(): () => FakeOidcProvider {
  let idp: FakeOidcProvider | undefined;
  beforeAll(async () => {
    idp = await startOidcProvider();
  });
  afterAll(async () => {
    await idp?.close();
  });
  return () => idp!;
}

/** Signs in at `provider` as whoever the fake provider has as its user; the new session as a caller. */
export async function oidcSignIn(ctx: TestContext, provider: string, username: string): Promise<Caller> {
  const start = await ctx.app.inject({ method: 'GET', url: `/api/auth/oidc/${provider}/login` });
  const flow = start.cookies.find((c) => c.name === OIDC_FLOW_COOKIE)!.value;
  const approved = await fetch(new URL(start.headers.location as string), { redirect: 'manual' });
  const back = new URL(approved.headers.get('location')!);
  const res = await ctx.app.inject({
    method: 'GET',
    url: back.pathname + back.search,
    cookies: { [OIDC_FLOW_COOKIE]: flow },
  });
  const session = res.cookies.find((c) => c.name === SESSION_COOKIE && c.value);
  if (!session) throw new Error(`sign-in refused: ${String(res.headers.location)}`);
  const caller = callerFor(ctx, { id: 0, username, password: '', cookie: session.value });
  return { ...caller, id: (await caller.get('/api/user')).json<{ id: number }>().id };
}
