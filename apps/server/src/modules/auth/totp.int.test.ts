import { CSRF_HEADER, SESSION_COOKIE } from '@gantry/contracts';
import { Secret, TOTP } from 'otpauth';
import { describe, expect, it } from 'vitest';
import { SecretBox, sha256 } from '../../platform/crypto.js';
import {
  callerFor,
  createProject,
  engines,
  signedInUser,
  useTestApp,
  type Caller,
  type TestContext,
} from '../../test/harness.js';
import { PENDING_SESSION_MS } from './auth.service.js';
import { REFUSE_AFTER } from './login-throttle.js';

const STEP_MS = 30_000;

/**
 * The API shows the secret only in the answer that creates one's own method (and in the QR image),
 * so the test opens the sealed secret from the database with the app's own key, as an
 * authenticator app would read the QR.
 */
async function authenticator(ctx: TestContext, userId: number) {
  const row = await ctx.db.db
    .selectFrom('user_totp')
    .select('secret')
    .where('user_id', '=', userId)
    .executeTakeFirstOrThrow();
  const totp = new TOTP({ secret: Secret.fromBase32(new SecretBox(ctx.secretKey).open(row.secret)) });
  return {
    secret: totp.secret.base32,
    /** The code of the step `offset` steps from now. */
    code: (offset = 0) => totp.generate({ timestamp: Date.now() + offset * STEP_MS }),
    /** A code that is wrong whatever the step. */
    wrong: () => {
      const valid = new Set([-1, 0, 1, 2].map((o) => totp.generate({ timestamp: Date.now() + o * STEP_MS })));
      let n = 0;
      while (valid.has(String(n).padStart(6, '0'))) n += 1;
      return String(n).padStart(6, '0');
    },
  };
}

/** Signs in with the password only; the session may still wait for the code. */
async function passwordOnly(ctx: TestContext, u: Caller): Promise<Caller> {
  const res = await ctx.app.inject({
    method: 'POST',
    url: '/api/auth/login',
    payload: { auth: u.username, password: u.password },
  });
  expect(res.statusCode).toBe(204);
  return callerFor(ctx, { ...u, cookie: res.cookies.find((c) => c.name === SESSION_COOKIE)!.value });
}

/**
 * Enables a method: your own with your password, then confirmed with a code of its secret (the
 * previous step's, so the current code stays unspent for the test); another user's (as an admin)
 * without either.
 */
async function enable(u: Caller, userId = u.id): Promise<{ id: number; recovery_code: string; secret?: string }> {
  const res = await u.post(`/api/users/${userId}/2fas/totp`, userId === u.id ? { password: u.password } : undefined);
  expect(res.statusCode).toBe(201);
  const created = res.json<{ id: number; recovery_code: string; secret?: string }>();
  if (userId === u.id) {
    const totp = new TOTP({ secret: Secret.fromBase32(created.secret!) });
    // A slow answer may see the step end: then that code is too old, and the next previous one is given.
    let status = 0;
    for (let i = 0; i < 3 && status !== 204; i++) {
      const code = totp.generate({ timestamp: Date.now() - STEP_MS });
      status = (await u.post(`/api/users/${u.id}/2fas/totp/${created.id}/confirm`, { code })).statusCode;
    }
    expect(status).toBe(204);
  }
  return created;
}

/** The user removing their own method, with proof in the body. */
function removeOwn(ctx: TestContext, u: Caller, totpId: number, proof: { password?: string; passcode?: string }) {
  return ctx.app.inject({
    method: 'DELETE',
    url: `/api/users/${u.id}/2fas/totp/${totpId}`,
    cookies: { [SESSION_COOKIE]: u.cookie },
    headers: { [CSRF_HEADER]: '1' },
    payload: proof,
  });
}

describe.each(engines)('two-factor sign-in ($name)', (engine) => {
  const t = useTestApp(engine, { GANTRY_TOTP_ENABLED: 'true' });

  it('announces the method in the login data and the system info', async () => {
    const u = await signedInUser(t());
    const methods = { totp: { enabled: true, allow_recovery: true } };
    expect((await t().app.inject('/api/auth/login')).json().auth_methods).toEqual(methods);
    expect((await u.get('/api/info')).json().auth_methods).toEqual(methods);
  });

  it('enables once, shows the recovery code and the secret only then, and never again', async () => {
    const u = await signedInUser(t());
    expect((await u.get('/api/user')).json().totp).toBeNull();
    const created = await enable(u);
    expect(created).toEqual({
      id: expect.any(Number),
      recovery_code: expect.stringMatching(/^[a-z0-9]{16}$/),
      confirmed: false,
      secret: expect.stringMatching(/^[A-Z2-7]{32}$/),
    });
    const again = await u.post(`/api/users/${u.id}/2fas/totp`, { password: u.password });
    expect(again.statusCode).toBe(409);
    expect(again.json()).toEqual({ error: 'Two-factor sign-in is already enabled for this user', code: 'totp_exists' });

    const { secret } = await authenticator(t(), u.id);
    expect(created.secret).toBe(secret);
    const admin = await signedInUser(t(), { admin: true });
    for (const res of [await u.get('/api/user'), await u.get(`/api/users/${u.id}`), await admin.get('/api/users')]) {
      expect(res.statusCode).toBe(200);
      expect(res.body).not.toContain(secret);
      expect(res.body).not.toContain(created.recovery_code);
    }
    expect((await u.get(`/api/users/${u.id}`)).json().totp).toEqual({ id: created.id });
    // Sealed at rest, the recovery code kept as a hash only.
    const row = await t()
      .db.db.selectFrom('user_totp')
      .selectAll()
      .where('user_id', '=', u.id)
      .executeTakeFirstOrThrow();
    expect(row.secret).toMatch(/^v1:/);
    expect(row.secret).not.toContain(secret);
    expect(row.recovery_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(row)).not.toContain(created.recovery_code);
  });

  it('enables your own method only with your current password, so a session alone cannot', async () => {
    const ctx = t();
    const u = await signedInUser(ctx);
    const url = `/api/users/${u.id}/2fas/totp`;
    const none = await u.post(url);
    expect(none.statusCode).toBe(400);
    expect(none.json()).toEqual({
      error: 'Current password is required',
      code: 'current_password_required',
      field: 'password',
    });
    expect((await u.post(url, { password: '' })).json()).toMatchObject({ code: 'current_password_required' });
    const wrong = await u.post(url, { password: 'not-it' });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json()).toEqual({
      error: 'Current password is incorrect',
      code: 'current_password_incorrect',
      field: 'password',
    });
    // Refused, still signed in (400, not 401), still off; an API token is no better than a session.
    expect((await u.get('/api/user')).json().totp).toBeNull();
    const token = (await u.post('/api/user/tokens')).json<{ id: string }>().id;
    const byToken = await ctx.app.inject({
      method: 'POST',
      url,
      headers: { authorization: `Bearer ${token}` },
      payload: {},
    });
    expect(byToken.json()).toMatchObject({ code: 'current_password_required' });
    // Wrong passwords here count like failed sign-ins.
    const failures = await ctx.db.db
      .selectFrom('auth_failure')
      .select('count')
      .where('key', '=', `user:${u.id}`)
      .executeTakeFirst();
    expect(failures?.count).toBe(1);

    const ok = await u.post(url, { password: u.password });
    expect(ok.statusCode).toBe(201);
    // Made, and waiting for its first code: not on yet.
    expect((await u.get('/api/user')).json().totp).toBeNull();
  });

  it('asks for the code after the password, refuses a wrong one and lets the right one in', async () => {
    const ctx = t();
    const admin = await signedInUser(ctx, { admin: true });
    const projectId = await createProject(admin);
    await enable(admin);
    const app = await authenticator(ctx, admin.id);

    const pending = await passwordOnly(ctx, admin);
    for (const url of [
      '/api/user',
      '/api/projects',
      `/api/project/${projectId}`,
      `/api/project/${projectId}/templates`,
      '/api/users',
      '/api/user/tokens',
    ]) {
      const res = await pending.get(url);
      expect([url, res.statusCode, res.json()]).toEqual([url, 401, { error: 'TOTP_REQUIRED', code: 'totp_required' }]);
    }
    expect((await pending.post('/api/projects', { name: 'not yet' })).json()).toEqual({ error: 'TOTP_REQUIRED', code: 'totp_required' });
    expect((await pending.post('/api/user/tokens')).statusCode).toBe(401);
    // What the sign-in screen needs still answers.
    expect((await pending.get('/api/info')).statusCode).toBe(200);
    expect((await pending.get('/api/auth/login')).statusCode).toBe(200);

    const wrong = await pending.post('/api/auth/verify', { passcode: app.wrong() });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json()).toEqual({ error: 'Incorrect verification code.', code: 'incorrect_verification_code' });
    expect((await pending.post('/api/auth/verify', { passcode: '12345' })).statusCode).toBe(400);
    expect((await pending.post('/api/auth/verify', { passcode: 'abcdef' })).json()).toEqual({
      error: 'Incorrect verification code.',
      code: 'incorrect_verification_code',
    });
    expect((await pending.get('/api/user')).statusCode).toBe(401);

    expect((await pending.post('/api/auth/verify', { passcode: app.code() })).statusCode).toBe(204);
    expect((await pending.get('/api/user')).json()).toMatchObject({ id: admin.id, totp: { id: expect.any(Number) } });
    expect((await pending.get(`/api/project/${projectId}`)).statusCode).toBe(200);
    // Verifying a verified session changes nothing.
    expect((await pending.post('/api/auth/verify', { passcode: app.wrong() })).statusCode).toBe(204);
  });

  it('accepts each code once, so a code seen by someone else cannot be replayed', async () => {
    const ctx = t();
    const u = await signedInUser(ctx);
    await enable(u);
    const app = await authenticator(ctx, u.id);
    const code = app.code();
    const first = await passwordOnly(ctx, u);
    expect((await first.post('/api/auth/verify', { passcode: code })).statusCode).toBe(204);
    const second = await passwordOnly(ctx, u);
    expect((await second.post('/api/auth/verify', { passcode: code })).statusCode).toBe(401);
    expect((await second.post('/api/auth/verify', { passcode: app.code(1) })).statusCode).toBe(204);
    expect((await second.get('/api/user')).statusCode).toBe(200);
  });

  it('slows then refuses repeated wrong codes, even the right one while locked', async () => {
    const ctx = t();
    const u = await signedInUser(ctx);
    await enable(u);
    const app = await authenticator(ctx, u.id);
    const pending = await passwordOnly(ctx, u);
    // From many addresses: the limit per user holds even so (and the tests' own address stays unlocked).
    const verifyFrom = (passcode: string) =>
      ctx.app.inject({
        method: 'POST',
        url: '/api/auth/verify',
        remoteAddress: `10.42.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`,
        cookies: { [SESSION_COOKIE]: pending.cookie },
        headers: { [CSRF_HEADER]: '1' },
        payload: { passcode },
      });
    ctx.sleeps.length = 0;
    let last = 0;
    for (let i = 0; i < REFUSE_AFTER; i++) last = (await verifyFrom(app.wrong())).statusCode;
    expect(last).toBe(401);
    expect(ctx.sleeps.length).toBeGreaterThan(0);
    const refused = await verifyFrom(app.code());
    expect(refused.statusCode).toBe(429);
    expect(refused.json().error).toMatch(/Too many/);
    expect((await pending.get('/api/user')).json()).toEqual({ error: 'TOTP_REQUIRED', code: 'totp_required' });
  });

  it('checks no more of a burst of codes on one waiting session than the limit allows', async () => {
    const ctx = t();
    const u = await signedInUser(ctx);
    await enable(u);
    const app = await authenticator(ctx, u.id);
    const pending = await passwordOnly(ctx, u);
    const wrong = app.wrong();
    const burst = await Promise.all(
      Array.from({ length: 400 }, () =>
        ctx.app.inject({
          method: 'POST',
          url: '/api/auth/verify',
          remoteAddress: '10.43.0.1',
          cookies: { [SESSION_COOKIE]: pending.cookie },
          headers: { [CSRF_HEADER]: '1' },
          payload: { passcode: wrong },
        }),
      ),
    );
    const codes = burst.map((r) => r.statusCode);
    expect(codes.filter((c) => c === 401)).toHaveLength(REFUSE_AFTER);
    expect(codes.filter((c) => c === 429)).toHaveLength(400 - REFUSE_AFTER);
    const refused = await pending.post('/api/auth/verify', { passcode: app.code() });
    expect(refused.statusCode).toBe(429);
    expect((await pending.get('/api/user')).json()).toEqual({ error: 'TOTP_REQUIRED', code: 'totp_required' });
  });

  it('lets the recovery code in once and removes the method, so it must be set up again', async () => {
    const ctx = t();
    const u = await signedInUser(ctx);
    const { recovery_code } = await enable(u);
    const pending = await passwordOnly(ctx, u);
    const wrong = await pending.post('/api/auth/recovery', { recovery_code: 'not-the-code' });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json()).toEqual({ error: 'Incorrect recovery code.', code: 'incorrect_recovery_code' });
    expect((await pending.post('/api/auth/recovery', { recovery_code: '' })).json()).toEqual({
      error: 'Recovery code is required', code: 'field_required', label_key: 'recovery_code',
      field: 'recovery_code',
    });

    expect(
      (await pending.post('/api/auth/recovery', { recovery_code: ` ${recovery_code.toUpperCase()} ` })).statusCode,
    ).toBe(204);
    expect((await pending.get('/api/user')).json()).toMatchObject({ id: u.id, totp: null });
    // The next sign-in needs the password only; the method can be enabled anew.
    const next = await passwordOnly(ctx, u);
    expect((await next.get('/api/user')).statusCode).toBe(200);
    const renewed = await enable(next);
    expect(renewed.recovery_code).not.toBe(recovery_code);
    const events = await ctx.db.db
      .selectFrom('event')
      .select(['description', 'project_id'])
      .where('object_id', '=', u.id)
      .where('object_type', '=', 'user')
      .execute();
    expect(events.map((e) => e.description)).toEqual([
      `Two-factor sign-in enabled for ${u.username}`,
      `Two-factor sign-in disabled for ${u.username} by its recovery code`,
      `Two-factor sign-in enabled for ${u.username}`,
    ]);
    expect(events.every((e) => e.project_id === null)).toBe(true);
  });

  it('shows the QR code to the user only, and only until the first code was accepted', async () => {
    const ctx = t();
    const u = await signedInUser(ctx);
    const admin = await signedInUser(ctx, { admin: true });
    const other = await signedInUser(ctx);
    const created = await u.post(`/api/users/${u.id}/2fas/totp`, { password: u.password });
    const { id, secret } = created.json<{ id: number; secret: string }>();
    const qrUrl = `/api/users/${u.id}/2fas/totp/${id}/qr`;

    const qr = await u.get(qrUrl);
    expect(qr.statusCode).toBe(200);
    expect(qr.headers['content-type']).toBe('image/png');
    expect(qr.headers['cache-control']).toBe('no-store');
    expect(qr.rawPayload.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));

    const byAdmin = await admin.get(qrUrl);
    expect(byAdmin.statusCode).toBe(403);
    expect(byAdmin.body).not.toContain('PNG');
    expect((await other.get(qrUrl)).statusCode).toBe(404);
    expect((await u.get(`/api/users/${u.id}/2fas/totp/${id + 1000}/qr`)).statusCode).toBe(404);

    const code = new TOTP({ secret: Secret.fromBase32(secret) }).generate();
    expect((await u.post(`/api/users/${u.id}/2fas/totp/${id}/confirm`, { code })).statusCode).toBe(204);
    expect((await u.get(qrUrl)).statusCode).toBe(404);
  });

  it("lets an admin enable and remove another user's method, but not other users", async () => {
    const ctx = t();
    const u = await signedInUser(ctx);
    const admin = await signedInUser(ctx, { admin: true });
    const other = await signedInUser(ctx);
    expect((await other.post(`/api/users/${u.id}/2fas/totp`)).statusCode).toBe(404);
    const { id } = await enable(admin, u.id);
    expect((await u.get('/api/user')).json().totp).toEqual({ id });
    expect((await other.del(`/api/users/${u.id}/2fas/totp/${id}`)).statusCode).toBe(404);
    expect((await admin.del(`/api/users/${u.id}/2fas/totp/${id + 1000}`)).statusCode).toBe(404);
    expect((await admin.del(`/api/users/${u.id}/2fas/totp/${id}`)).statusCode).toBe(204);
    expect((await u.get('/api/user')).json().totp).toBeNull();
    // The user may remove their own too, with their password.
    const own = await enable(u);
    expect((await removeOwn(ctx, u, own.id, { password: u.password })).statusCode).toBe(204);
    const events = await ctx.db.db
      .selectFrom('event')
      .select(['description', 'user_id'])
      .where('object_id', '=', u.id)
      .where('object_type', '=', 'user')
      .execute();
    expect(events).toEqual([
      { description: `Two-factor sign-in enabled for ${u.username}`, user_id: admin.id },
      { description: `Two-factor sign-in disabled for ${u.username}`, user_id: admin.id },
      { description: `Two-factor sign-in enabled for ${u.username}`, user_id: u.id },
      { description: `Two-factor sign-in disabled for ${u.username}`, user_id: u.id },
    ]);
  });

  it('removes your own method only with your password or a current code', async () => {
    const ctx = t();
    const u = await signedInUser(ctx);
    const { id } = await enable(u);
    const app = await authenticator(ctx, u.id);
    const stillOn = async () => expect((await u.get('/api/user')).json().totp).toEqual({ id });

    // A session alone is not enough: no proof, an empty one, a wrong password, a wrong code.
    const none = await u.del(`/api/users/${u.id}/2fas/totp/${id}`);
    expect(none.statusCode).toBe(400);
    expect(none.json()).toEqual({ error: 'Enter your current password or a current verification code', code: 'totp_proof_required' });
    expect((await removeOwn(ctx, u, id, { password: '', passcode: '' })).json()).toEqual({
      error: 'Enter your current password or a current verification code',
      code: 'totp_proof_required',
    });
    const wrongPassword = await removeOwn(ctx, u, id, { password: 'not-it' });
    expect(wrongPassword.statusCode).toBe(400);
    expect(wrongPassword.json()).toEqual({
      error: 'Current password is incorrect',
      code: 'current_password_incorrect',
      field: 'password',
    });
    const wrongCode = await removeOwn(ctx, u, id, { passcode: app.wrong() });
    expect(wrongCode.statusCode).toBe(400);
    expect(wrongCode.json()).toEqual({ error: 'Incorrect verification code.', code: 'incorrect_verification_code', field: 'passcode' });
    // Not in the query string either (logs keep it).
    const query = await ctx.app.inject({
      method: 'DELETE',
      url: `/api/users/${u.id}/2fas/totp/${id}?password=${encodeURIComponent(u.password)}`,
      cookies: { [SESSION_COOKIE]: u.cookie },
      headers: { [CSRF_HEADER]: '1' },
    });
    expect(query.statusCode).toBe(400);
    await stillOn();
    // The session is still signed in after the refusals (400, not 401).
    expect((await u.get('/api/user')).statusCode).toBe(200);

    // A current code removes it.
    expect((await removeOwn(ctx, u, id, { passcode: app.code() })).statusCode).toBe(204);
    expect((await u.get('/api/user')).json().totp).toBeNull();
  });

  it('counts wrong passwords given to remove the method like failed sign-ins', async () => {
    const ctx = t();
    const u = await signedInUser(ctx);
    const { id } = await enable(u);
    let last = 0;
    for (let i = 0; i < REFUSE_AFTER; i++) last = (await removeOwn(ctx, u, id, { password: 'guess' })).statusCode;
    expect(last).toBe(400);
    const locked = await removeOwn(ctx, u, id, { password: u.password });
    expect(locked.statusCode).toBe(429);
    expect(Number(locked.headers['retry-after'])).toBeGreaterThan(0);
    expect((await u.get('/api/user')).json().totp).toEqual({ id });
  });

  it('does not ask API tokens for a code', async () => {
    const ctx = t();
    const u = await signedInUser(ctx);
    // Tokens come from a fully signed-in session: it already passed both steps.
    const token = (await u.post('/api/user/tokens')).json<{ id: string }>().id;
    await enable(u);
    const res = await ctx.app.inject({
      method: 'GET',
      url: '/api/user',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().totp).not.toBeNull();
  });

  it('keeps the second step to sessions: no cookie, no verification', async () => {
    const ctx = t();
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/api/auth/verify',
      headers: { [CSRF_HEADER]: '1' },
      payload: { passcode: '123456' },
    });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({ error: 'Not authenticated', code: 'not_authenticated' });
    const u = await signedInUser(ctx);
    await enable(u);
    const pending = await passwordOnly(ctx, u);
    const cross = await ctx.app.inject({
      method: 'POST',
      url: '/api/auth/verify',
      cookies: { [SESSION_COOKIE]: pending.cookie },
      headers: { origin: 'https://evil.example' },
      payload: { passcode: '123456' },
    });
    expect(cross.statusCode).toBe(403);
    expect((await pending.post('/api/auth/logout')).statusCode).toBe(204);
    expect((await pending.post('/api/auth/verify', { passcode: '123456' })).json()).toEqual({
      error: 'Not authenticated',
      code: 'not_authenticated',
    });
  });

  it('ends a session left waiting for the code after a quarter of an hour', async () => {
    const ctx = t();
    const u = await signedInUser(ctx);
    await enable(u);
    const pending = await passwordOnly(ctx, u);
    const old = new Date(Date.now() - PENDING_SESSION_MS - 1000).toISOString();
    await ctx.db.db.updateTable('session').set({ created: old }).where('id', '=', sha256(pending.cookie)).execute();
    expect((await pending.get('/api/user')).json()).toEqual({ error: 'Not authenticated', code: 'not_authenticated' });
    expect(
      (await pending.post('/api/auth/verify', { passcode: (await authenticator(ctx, u.id)).code() })).statusCode,
    ).toBe(401);
    // A verified session of the same age goes on.
    await ctx.db.db.updateTable('session').set({ created: old }).where('id', '=', sha256(u.cookie)).execute();
    expect((await u.get('/api/user')).statusCode).toBe(200);
  });
});

describe.each(engines)('two-factor sign-in turned off ($name)', (engine) => {
  const t = useTestApp(engine);

  it('refuses enabling, and sign-in does not ask for a code', async () => {
    const ctx = t();
    const u = await signedInUser(ctx);
    const res = await u.post(`/api/users/${u.id}/2fas/totp`);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: 'Two-factor sign-in is not enabled on this server', code: 'totp_disabled' });
    expect((await ctx.app.inject('/api/auth/login')).json().auth_methods).toEqual({
      totp: { enabled: false, allow_recovery: false },
    });
    // A method left from when it was on does not stand in the way.
    await ctx.db.db
      .insertInto('user_totp')
      .values({
        user_id: u.id,
        secret: new SecretBox(ctx.secretKey).seal(new Secret().base32),
        recovery_hash: 'x',
        last_step: 0,
        created: new Date().toISOString(),
      })
      .execute();
    const again = await passwordOnly(ctx, u);
    expect((await again.get('/api/user')).json()).toMatchObject({ id: u.id, totp: { id: expect.any(Number) } });
  });
});

describe('two-factor sign-in without recovery codes', () => {
  const t = useTestApp(engines[0]!, { GANTRY_TOTP_ENABLED: 'yes', GANTRY_TOTP_ALLOW_RECOVERY: 'no' });

  it('says so and refuses the recovery code', async () => {
    const ctx = t();
    const u = await signedInUser(ctx);
    expect((await ctx.app.inject('/api/auth/login')).json().auth_methods).toEqual({
      totp: { enabled: true, allow_recovery: false },
    });
    const { recovery_code } = await enable(u);
    const pending = await passwordOnly(ctx, u);
    const res = await pending.post('/api/auth/recovery', { recovery_code });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual({ error: 'Recovery codes are not accepted on this server', code: 'recovery_disabled' });
    expect((await pending.get('/api/user')).json()).toEqual({ error: 'TOTP_REQUIRED', code: 'totp_required' });
    expect((await u.get('/api/user')).json().totp).not.toBeNull();
  });
});
