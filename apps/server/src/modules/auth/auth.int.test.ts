import { CSRF_HEADER, SESSION_COOKIE } from '@gantry/contracts';
import { describe, expect, it } from 'vitest';
import { REFUSE_AFTER, SLOW_AFTER } from './login-throttle.js';
import { engines, signedInUser, uniq, useTestApp } from '../../test/harness.js';

describe.each(engines)('auth ($name)', (engine) => {
  const t = useTestApp(engine);

  it('signs in by username or email, sets an HttpOnly SameSite cookie and answers 204', async () => {
    const u = await signedInUser(t());
    for (const auth of [u.username, `${u.username}@example.com`, u.username.toUpperCase()]) {
      const res = await t().app.inject({ method: 'POST', url: '/api/auth/login', payload: { auth, password: u.password } });
      expect(res.statusCode).toBe(204);
      const cookie = res.cookies.find((c) => c.name === SESSION_COOKIE)!;
      expect(cookie.httpOnly).toBe(true);
      expect(cookie.sameSite).toBe('Lax');
      expect(cookie.secure).toBeFalsy();
      const me = await t().app.inject({ method: 'GET', url: '/api/user', cookies: { [SESSION_COOKIE]: cookie.value } });
      expect(me.json()).toMatchObject({ username: u.username, can_create_project: false });
    }
  });

  it('answers the same 401 for an unknown user and a wrong password', async () => {
    const u = await signedInUser(t());
    const wrong = await t().app.inject({ method: 'POST', url: '/api/auth/login', payload: { auth: u.username, password: 'nope' } });
    const unknown = await t().app.inject({ method: 'POST', url: '/api/auth/login', payload: { auth: uniq('ghost'), password: 'nope' } });
    expect(wrong.statusCode).toBe(401);
    expect(unknown.statusCode).toBe(401);
    expect(wrong.json()).toEqual({ error: 'Incorrect login or password', code: 'incorrect_login' });
    expect(unknown.body).toBe(wrong.body);
    expect(wrong.cookies).toHaveLength(0);
  });

  it('validates the login body', async () => {
    const res = await t().app.inject({ method: 'POST', url: '/api/auth/login', payload: { auth: '', password: 'x' } });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: 'Username is required', code: 'field_required', label_key: 'username', field: 'auth' });
    const res2 = await t().app.inject({ method: 'POST', url: '/api/auth/login', payload: { auth: 'a' } });
    expect(res2.json()).toEqual({ error: 'Password is required', code: 'field_required', label_key: 'password', field: 'password' });
  });

  it('slows then refuses repeated failures for one account, and a success resets it', async () => {
    const ctx = t();
    const u = await signedInUser(ctx);
    ctx.sleeps.length = 0;
    const fail = () =>
      ctx.app.inject({ method: 'POST', url: '/api/auth/login', remoteAddress: `10.9.${Math.floor(Math.random() * 250)}.1`, payload: { auth: u.username, password: 'bad' } });
    for (let i = 0; i < SLOW_AFTER; i++) expect((await fail()).statusCode).toBe(401);
    expect(ctx.sleeps).toHaveLength(0);
    expect((await fail()).statusCode).toBe(401);
    expect(ctx.sleeps.length).toBe(1);
    for (let i = SLOW_AFTER + 1; i < REFUSE_AFTER; i++) await fail();
    const refused = await fail();
    expect(refused.statusCode).toBe(429);
    expect(refused.json().error).toMatch(/Too many/);
    // Even the right password is refused while the account is locked.
    const right = await ctx.app.inject({ method: 'POST', url: '/api/auth/login', payload: { auth: u.username, password: u.password } });
    expect(right.statusCode).toBe(429);
  });

  it('logout ends the session on the server', async () => {
    const u = await signedInUser(t());
    expect((await u.get('/api/user')).statusCode).toBe(200);
    expect((await u.post('/api/auth/logout')).statusCode).toBe(204);
    const after = await u.get('/api/user');
    expect(after.statusCode).toBe(401);
    expect(after.json()).toEqual({ error: 'Not authenticated', code: 'not_authenticated' });
  });

  it('keeps private routes private and public ones open', async () => {
    const app = t().app;
    expect((await app.inject('/api/user')).statusCode).toBe(401);
    expect((await app.inject('/api/projects')).statusCode).toBe(401);
    expect((await app.inject('/api/info')).statusCode).toBe(401);
    expect((await app.inject({ method: 'GET', url: '/api/user', cookies: { [SESSION_COOKIE]: 'forged' } })).statusCode).toBe(401);
    const info = await app.inject('/api/auth/login');
    expect(info.json()).toEqual({
      oidc_providers: [],
      login_with_password: true,
      auth_methods: { totp: { enabled: false, allow_recovery: false } },
    });
    const ping = await app.inject('/api/ping');
    expect(ping.body).toBe('pong');
  });

  it('refuses cookie requests that change state from another site', async () => {
    const ctx = t();
    const u = await signedInUser(ctx);
    const cookies = { [SESSION_COOKIE]: u.cookie };
    const cross = await ctx.app.inject({ method: 'POST', url: '/api/projects', cookies, headers: { origin: 'https://evil.example' }, payload: { name: 'x' } });
    expect(cross.statusCode).toBe(403);
    expect(cross.json()).toEqual({ error: 'Cross-site request refused', code: 'cross_site' });
    const fetchSite = await ctx.app.inject({ method: 'POST', url: '/api/auth/logout', cookies, headers: { 'sec-fetch-site': 'cross-site' } });
    expect(fetchSite.statusCode).toBe(403);
    expect((await u.get('/api/user')).statusCode).toBe(200);
    const sameOrigin = await ctx.app.inject({ method: 'POST', url: '/api/projects', cookies, headers: { origin: 'http://localhost:80', host: 'localhost:80' }, payload: { name: 'y' } });
    expect(sameOrigin.json().error).not.toBe('Cross-site request refused');
    const withHeader = await ctx.app.inject({ method: 'POST', url: '/api/projects', cookies, headers: { origin: 'https://evil.example', [CSRF_HEADER]: '1' }, payload: { name: 'z' } });
    expect(withHeader.json().error).not.toBe('Cross-site request refused');
  });

  it('accepts a bearer token on any route, scheme in any case', async () => {
    const ctx = t();
    const u = await signedInUser(ctx);
    const created = await u.post('/api/user/tokens');
    const token = created.json<{ id: string }>().id;
    for (const scheme of ['Bearer', 'bearer', 'BEARER']) {
      const res = await ctx.app.inject({ method: 'GET', url: '/api/user', headers: { authorization: `${scheme} ${token}` } });
      expect(res.json()).toMatchObject({ id: u.id });
    }
    const post = await ctx.app.inject({ method: 'POST', url: '/api/projects', headers: { authorization: `Bearer ${token}`, origin: 'https://elsewhere.example' }, payload: { name: 'by token' } });
    expect(post.statusCode).toBe(403); // not allowed to create projects, but not refused as cross-site
    expect(post.json().error).not.toMatch(/Cross-site/);
    const bad = await ctx.app.inject({ method: 'GET', url: '/api/user', headers: { authorization: 'Bearer nope' } });
    expect(bad.statusCode).toBe(401);
  });
});

describe('auth over https (GANTRY_WEB_HOST)', () => {
  const t = useTestApp(engines[0]!, { GANTRY_WEB_HOST: 'https://gantry.example' });
  it('sets a Secure cookie', async () => {
    const u = await signedInUser(t());
    const res = await t().app.inject({ method: 'POST', url: '/api/auth/login', payload: { auth: u.username, password: u.password } });
    expect(res.cookies.find((c) => c.name === SESSION_COOKIE)!.secure).toBe(true);
  });
});
