import { SESSION_COOKIE } from '@gantry/contracts';
import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callerFor, engines, signedInUser, uniq, useTestApp, type TestContext } from '../../test/harness.js';
import { startOidcProvider, useOidcProvider, type FakeOidcProvider } from '../../test/oidc-provider.js';
import { OIDC_FLOW_COOKIE } from './oidc.routes.js';

function providersEnv(idp: FakeOidcProvider, other?: FakeOidcProvider): string {
  const entry = (p: FakeOidcProvider, name: string) => ({
    display_name: name,
    provider_url: p.issuer,
    client_id: p.clientId,
    client_secret: p.clientSecret,
  });
  return JSON.stringify({
    test: { ...entry(idp, 'Test IdP'), color: '#123456', icon: 'key' },
    ...(other ? { other: entry(other, 'Other IdP') } : {}),
  });
}

/** Starts sign-in at Gantry, lets the provider approve; answers the callback path and flow cookie. */
async function startFlow(ctx: TestContext, query = '', provider = 'test') {
  const res = await ctx.app.inject({ method: 'GET', url: `/api/auth/oidc/${provider}/login${query}` });
  expect(res.statusCode).toBe(302);
  const flowCookie = res.cookies.find((c) => c.name === OIDC_FLOW_COOKIE)!;
  expect(flowCookie).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/api/auth/oidc' });
  const authorize = new URL(res.headers.location as string);
  expect(authorize.searchParams.get('code_challenge_method')).toBe('S256');
  expect(authorize.searchParams.get('state')).toBeTruthy();
  expect(authorize.searchParams.get('nonce')).toBeTruthy();
  expect(authorize.searchParams.get('client_secret')).toBeNull();
  const approved = await fetch(authorize, { redirect: 'manual' });
  expect(approved.status).toBe(302);
  const back = new URL(approved.headers.get('location')!);
  return { flow: flowCookie.value, callback: back.pathname + back.search };
}

function finishFlow(ctx: TestContext, callback: string, flow?: string) {
  return ctx.app.inject({ method: 'GET', url: callback, cookies: flow ? { [OIDC_FLOW_COOKIE]: flow } : {} });
}

async function signIn(ctx: TestContext, query = '', provider = 'test') {
  const { flow, callback } = await startFlow(ctx, query, provider);
  return finishFlow(ctx, callback, flow);
}

function sessionOf(res: Awaited<ReturnType<typeof finishFlow>>) {
  return res.cookies.find((c) => c.name === SESSION_COOKIE && c.value);
}

/** The sign-in page with an error, and no session. */
function expectRefused(res: Awaited<ReturnType<typeof finishFlow>>, message: RegExp) {
  expect(res.statusCode).toBe(302);
  const location = new URL(res.headers.location as string, 'http://x');
  expect(location.pathname).toBe('/auth/login');
  expect(location.searchParams.get('error')).toMatch(message);
  expect(sessionOf(res)).toBeUndefined();
}

describe.each(engines)('oidc sign-in ($name)', (engine) => {
  const provider = useOidcProvider();
  const t = useTestApp(engine, {
    GANTRY_TOTP_ENABLED: 'true',
    // Read when the app starts, after the provider is listening.
    get GANTRY_OIDC_PROVIDERS() {
      return providersEnv(provider());
    },
  });

  const nextUser = () => {
    const name = uniq('ext');
    provider().user = {
      sub: `sub-${name}`,
      preferred_username: name,
      email: `${name}@provider().example`,
      name: `External ${name}`,
    };
    return name;
  };

  it('lists the provider on the login data without secrets or URLs', async () => {
    const res = await t().app.inject({ method: 'GET', url: '/api/auth/login' });
    expect(res.json()).toMatchObject({
      oidc_providers: [{ id: 'test', name: 'Test IdP', color: '#123456', icon: 'key' }],
      login_with_password: true,
    });
    expect(res.body).not.toContain(provider().clientSecret);
    expect(res.body).not.toContain(provider().issuer);
  });

  it('creates an external user with a working session, then signs the same user in again', async () => {
    const ctx = t();
    const username = nextUser();
    const first = await signIn(ctx, '?redirect=/project/premium');
    expect(first.statusCode).toBe(302);
    expect(first.headers.location).toBe('/project/premium');
    const cookie = sessionOf(first)!;
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax' });
    expect(cookie.secure).toBeFalsy();
    // The flow cookie is single use.
    expect(first.cookies.find((c) => c.name === OIDC_FLOW_COOKIE)?.value).toBe('');
    const me = callerFor(ctx, { id: 0, username, password: '', cookie: cookie.value });
    const user = (await me.get('/api/user')).json<{
      id: number;
      username: string;
      external: boolean;
      name: string;
      email: string;
      admin: boolean;
      alert: boolean;
    }>();
    expect(user).toMatchObject({
      username,
      external: true,
      admin: false,
      alert: false,
      name: `External ${username}`,
      email: `${username}@provider().example`,
    });
    const row = await ctx.db.db
      .selectFrom('user')
      .select(['password', 'external'])
      .where('id', '=', user.id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ password: null, external: 1 });
    const events = await ctx.db.db
      .selectFrom('event')
      .select('description')
      .where('object_type', '=', 'user')
      .where('object_id', '=', user.id)
      .execute();
    expect(events.map((e) => e.description)).toEqual([`User ${username} created by sign-in with Test IdP`]);

    const second = await signIn(ctx);
    expect(second.headers.location).toBe('/');
    const again = callerFor(ctx, { id: 0, username, password: '', cookie: sessionOf(second)!.value });
    expect((await again.get('/api/user')).json()).toMatchObject({ id: user.id });
    const count = await ctx.db.db
      .selectFrom('user')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('username', '=', username)
      .executeTakeFirstOrThrow();
    expect(Number(count.n)).toBe(1);
    // External users have no password to sign in with.
    const pw = await ctx.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { auth: username, password: 'x' },
    });
    expect(pw.statusCode).toBe(401);
  });

  it('completes missing claims from userinfo', async () => {
    const username = nextUser();
    provider().misbehave = { omitFromIdToken: ['preferred_username', 'email', 'name'] };
    const res = await signIn(t());
    const me = callerFor(t(), { id: 0, username, password: '', cookie: sessionOf(res)!.value });
    expect((await me.get('/api/user')).json()).toMatchObject({ username, email: `${username}@provider().example` });
  });

  it('refuses a wrong state, a missing flow cookie, a tampered id_token, a wrong nonce and a PKCE mismatch', async () => {
    const ctx = t();
    nextUser();
    const { flow, callback } = await startFlow(ctx);
    expectRefused(await finishFlow(ctx, callback.replace(/state=[^&]+/, 'state=forged'), flow), /state/i);

    const missing = await startFlow(ctx);
    expectRefused(await finishFlow(ctx, missing.callback), /expired|another browser/);
    const garbled = await startFlow(ctx);
    expectRefused(
      await finishFlow(ctx, garbled.callback, `${garbled.flow.slice(0, -4)}AAAA`),
      /expired|another browser/,
    );

    provider().misbehave = { tamperIdToken: true };
    expectRefused(await signIn(ctx), /signature/i);
    provider().misbehave = { nonce: 'not-the-nonce' };
    expectRefused(await signIn(ctx), /nonce/i);
    const before = provider().refusals.length;
    provider().misbehave = { wrongChallenge: true };
    expectRefused(await signIn(ctx), /PKCE verifier mismatch/);
    expect(provider().refusals.slice(before)).toEqual(['PKCE verifier mismatch']);
  });

  it('does not take over local accounts by username or by email', async () => {
    const ctx = t();
    const local = await signedInUser(ctx);
    provider().user = {
      sub: 'local-by-name',
      preferred_username: local.username,
      email: `${uniq('x')}@provider().example`,
      name: 'Intruder',
    };
    expectRefused(await signIn(ctx), /local account/);
    provider().user = {
      sub: 'local-by-mail',
      preferred_username: uniq('other'),
      email: `${local.username}@example.com`,
      name: 'Intruder',
    };
    expectRefused(await signIn(ctx), /local account/);
    // Not even when the provider vouches for the local account's email.
    provider().user = {
      sub: 'local-verified',
      preferred_username: local.username,
      email: `${local.username}@example.com`,
      email_verified: true,
      name: 'Intruder',
    };
    expectRefused(await signIn(ctx), /local account/);
    expect(
      await ctx.db.db.selectFrom('external_identity').select('id').where('user_id', '=', local.id).execute(),
    ).toEqual([]);
  });

  it('lands only on paths of this site', async () => {
    const ctx = t();
    nextUser();
    for (const [redirect, expected] of [
      ['/project/3/history?x=1', '/project/3/history?x=1'],
      ['//evil.example/x', '/'],
      ['/\\evil.example', '/'],
      ['https://evil.example/', '/'],
      ['javascript:alert(1)', '/'],
    ] as const) {
      const res = await signIn(ctx, `?redirect=${encodeURIComponent(redirect)}`);
      expect([redirect, res.headers.location]).toEqual([redirect, expected]);
    }
  });

  it('answers 404 for an unknown provider', async () => {
    for (const url of ['/api/auth/oidc/nope/login', '/api/auth/oidc/nope/redirect?code=x&state=y']) {
      const res = await t().app.inject({ method: 'GET', url });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ error: 'Unknown sign-in provider', code: 'sign_in_provider_unknown' });
    }
  });

  it('still asks for the code of a user with two-factor sign-in', async () => {
    const ctx = t();
    const username = nextUser();
    const first = await signIn(ctx);
    const me = callerFor(ctx, { id: 0, username, password: '', cookie: sessionOf(first)!.value });
    const id = (await me.get('/api/user')).json<{ id: number }>().id;
    const created = await me.post(`/api/users/${id}/2fas/totp`);
    expect(created.statusCode).toBe(201);
    // Confirmed with a code of its secret (until then sign-in does not ask for one).
    const { id: totpId, secret } = created.json<{ id: number; secret: string }>();
    const code = new TOTP({ secret: Secret.fromBase32(secret) }).generate();
    expect((await me.post(`/api/users/${id}/2fas/totp/${totpId}/confirm`, { code })).statusCode).toBe(204);
    const second = await signIn(ctx);
    const pending = callerFor(ctx, { id, username, password: '', cookie: sessionOf(second)!.value });
    expect((await pending.get('/api/user')).json()).toEqual({ error: 'TOTP_REQUIRED', code: 'totp_required' });
  });
});

describe.each(engines)('oidc identity binding ($name)', (engine) => {
  let idp: FakeOidcProvider;
  let other: FakeOidcProvider;
  beforeAll(async () => {
    idp = await startOidcProvider();
    other = await startOidcProvider();
  });
  afterAll(async () => {
    await idp?.close();
    await other?.close();
  });
  const t = useTestApp(engine, {
    get GANTRY_OIDC_PROVIDERS() {
      return providersEnv(idp, other);
    },
  });

  /** The id of the user a successful sign-in opened a session for. */
  async function signedInId(res: Awaited<ReturnType<typeof finishFlow>>): Promise<number> {
    const cookie = sessionOf(res);
    expect(cookie, res.headers.location as string).toBeDefined();
    return (await callerFor(t(), { id: 0, username: '', password: '', cookie: cookie!.value }).get('/api/user')).json<{
      id: number;
    }>().id;
  }

  const bindings = (userId: number) =>
    t()
      .db.db.selectFrom('external_identity')
      .select(['provider', 'issuer', 'subject'])
      .where('user_id', '=', userId)
      .execute();

  /** An external user as an older Gantry created it: no binding yet. */
  const unboundExternal = (name: string) =>
    t().app.services.users.create({
      username: name,
      name: `Old ${name}`,
      email: `${name}@idp.example`,
      admin: false,
      external: true,
      alert: false,
    });

  it('binds a new external user to the provider, issuer and subject', async () => {
    const name = uniq('bind');
    idp.user = { sub: `sub-${name}`, preferred_username: name, email: `${name}@idp.example` };
    const id = await signedInId(await signIn(t()));
    expect(await bindings(id)).toEqual([{ provider: 'test', issuer: idp.issuer, subject: `sub-${name}` }]);
  });

  it('does not let the same username or email in from another provider or another subject', async () => {
    const ctx = t();
    const name = uniq('alice');
    idp.user = { sub: `sub-${name}`, preferred_username: name, email: `${name}@idp.example` };
    const alice = await signedInId(await signIn(ctx));
    // Another issuer claims the username, with its own (verified) email.
    other.user = { sub: `sub-${name}`, preferred_username: name, email: `${name}@evil.example`, email_verified: true };
    expectRefused(await signIn(ctx, '', 'other'), /verified/);
    // Another issuer claims username and email without vouching for the email.
    other.user = { sub: `sub-${name}`, preferred_username: name, email: `${name}@idp.example` };
    expectRefused(await signIn(ctx, '', 'other'), /verified/);
    other.user = { sub: `sub-${name}`, preferred_username: name, email: `${name}@idp.example`, email_verified: false };
    expectRefused(await signIn(ctx, '', 'other'), /verified/);
    // Another subject at the same provider, even with the verified email: the account is bound already.
    idp.user = { sub: `sub-${name}-2`, preferred_username: name, email: `${name}@idp.example`, email_verified: true };
    expectRefused(await signIn(ctx), /not linked/);
    expect(await bindings(alice)).toEqual([{ provider: 'test', issuer: idp.issuer, subject: `sub-${name}` }]);
  });

  it('does not link an unbound external user when the email is not verified or differs', async () => {
    const ctx = t();
    const name = uniq('old');
    const old = await unboundExternal(name);
    idp.user = { sub: `sub-${name}`, preferred_username: name, email: `${name}@idp.example` };
    expectRefused(await signIn(ctx), /verified/);
    idp.user = { sub: `sub-${name}`, preferred_username: name, email: `${name}@idp.example`, email_verified: false };
    expectRefused(await signIn(ctx), /verified/);
    idp.user = {
      sub: `sub-${name}`,
      preferred_username: name,
      email: `${name}@elsewhere.example`,
      email_verified: true,
    };
    expectRefused(await signIn(ctx), /verified/);
    expect(await bindings(old.id)).toEqual([]);
  });

  it('links an unbound external user by its verified email, then signs in by the binding only', async () => {
    const ctx = t();
    const name = uniq('old');
    const old = await unboundExternal(name);
    // Email compared without case; "true" as text is accepted (some providers send it so).
    idp.user = {
      sub: `sub-${name}`,
      preferred_username: name,
      email: `${name.toUpperCase()}@IDP.example`,
      email_verified: 'true',
    };
    expect(await signedInId(await signIn(ctx))).toBe(old.id);
    expect(await bindings(old.id)).toEqual([{ provider: 'test', issuer: idp.issuer, subject: `sub-${name}` }]);
    const events = await ctx.db.db
      .selectFrom('event')
      .select('description')
      .where('object_type', '=', 'user')
      .where('object_id', '=', old.id)
      .execute();
    expect(events.map((e) => e.description)).toEqual([`User ${name} linked to sign-in with Test IdP`]);

    // The provider renamed the person: the subject still finds the same account, unchanged.
    idp.user = { sub: `sub-${name}`, preferred_username: uniq('renamed'), email: `${uniq('renamed')}@idp.example` };
    expect(await signedInId(await signIn(ctx))).toBe(old.id);
    expect(await ctx.app.services.users.findById(old.id)).toMatchObject({
      username: name,
      email: `${name}@idp.example`,
    });
    const users = await ctx.db.db.selectFrom('user').select('id').where('username', 'like', 'renamed%').execute();
    expect(users).toEqual([]);
  });

  it('forgets the bindings of a deleted user', async () => {
    const ctx = t();
    const name = uniq('gone');
    idp.user = { sub: `sub-${name}`, preferred_username: name, email: `${name}@idp.example` };
    const first = await signedInId(await signIn(ctx));
    await ctx.app.services.users.deleteByAdmin(first);
    expect(await bindings(first)).toEqual([]);
    const second = await signedInId(await signIn(ctx));
    expect(second).not.toBe(first);
    expect(await bindings(second)).toEqual([{ provider: 'test', issuer: idp.issuer, subject: `sub-${name}` }]);
  });
});

describe.each(engines)('password sign-in disabled ($name)', (engine) => {
  const t = useTestApp(engine, { GANTRY_PASSWORD_LOGIN_DISABLED: 'true' });

  it('says so on the login data and refuses passwords with 403; users are still created', async () => {
    const ctx = t();
    expect((await ctx.app.inject({ method: 'GET', url: '/api/auth/login' })).json()).toMatchObject({
      oidc_providers: [],
      login_with_password: false,
    });
    const username = uniq('local');
    await ctx.app.services.users.create({
      username,
      name: 'Local',
      email: `${username}@example.com`,
      password: 'pw-123456',
      admin: true,
      external: false,
      alert: false,
    });
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { auth: username, password: 'pw-123456' },
    });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual({
      error: 'Sign-in with a password is disabled on this server',
      code: 'password_login_disabled',
    });
    expect(res.cookies).toHaveLength(0);
  });
});
