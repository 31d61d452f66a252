import { SESSION_COOKIE } from '@gantry/contracts';
import { Secret, TOTP } from 'otpauth';
import { describe, expect, it } from 'vitest';
import { callerFor, engines, signedInUser, useTestApp, type Caller, type TestContext } from '../../test/harness.js';

const STEP_MS = 30_000;

/** Signs in with the password only; the session may still wait for the code. */
async function passwordOnly(ctx: TestContext, u: Caller): Promise<Caller> {
  const res = await ctx.app.inject({ method: 'POST', url: '/api/auth/login', payload: { auth: u.username, password: u.password } });
  expect(res.statusCode).toBe(204);
  return callerFor(ctx, { ...u, cookie: res.cookies.find((c) => c.name === SESSION_COOKIE)!.value });
}

/** Starts setting up one's own method; answers its id and an authenticator app holding its secret. */
async function start(u: Caller) {
  const res = await u.post(`/api/users/${u.id}/2fas/totp`, { password: u.password });
  expect(res.statusCode).toBe(201);
  const body = res.json<{ id: number; recovery_code: string; confirmed: boolean; secret: string }>();
  const totp = new TOTP({ secret: Secret.fromBase32(body.secret) });
  return {
    ...body,
    code: (offset = 0) => totp.generate({ timestamp: Date.now() + offset * STEP_MS }),
    wrong: () => {
      const valid = new Set([-1, 0, 1, 2].map((o) => totp.generate({ timestamp: Date.now() + o * STEP_MS })));
      let n = 0;
      while (valid.has(String(n).padStart(6, '0'))) n += 1;
      return String(n).padStart(6, '0');
    },
  };
}

const confirmUrl = (u: Caller, totpId: number) => `/api/users/${u.id}/2fas/totp/${totpId}/confirm`;

describe.each(engines)('two-factor enrolment ($name)', (engine) => {
  const t = useTestApp(engine, { GANTRY_TOTP_ENABLED: 'true' });

  it('makes one\'s own method wait for a code: until then sign-in does not ask for one', async () => {
    const ctx = t();
    const u = await signedInUser(ctx);
    const created = await start(u);
    expect(created.confirmed).toBe(false);
    expect((await u.get('/api/user')).json().totp).toBeNull();
    const next = await passwordOnly(ctx, u);
    expect((await next.get('/api/user')).json()).toMatchObject({ id: u.id, totp: null });
  });

  it('refuses a wrong or missing code and keeps the method off', async () => {
    const ctx = t();
    const u = await signedInUser(ctx);
    const created = await start(u);
    const wrong = await u.post(confirmUrl(u, created.id), { code: created.wrong() });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json()).toEqual({ error: 'Incorrect verification code.', code: 'totp_code_incorrect', field: 'code' });
    const missing = await u.post(confirmUrl(u, created.id), {});
    expect(missing.statusCode).toBe(400);
    expect(missing.json()).toMatchObject({ error: 'Verification code is required', label_key: 'verification_code', code: 'field_required', field: 'code' });
    expect((await u.post(confirmUrl(u, created.id), { code: 'abcdef' })).statusCode).toBe(400);
    expect((await u.get('/api/user')).json().totp).toBeNull();
    const next = await passwordOnly(ctx, u);
    expect((await next.get('/api/user')).statusCode).toBe(200);
  });

  it('turns the method on with a right code; sign-in then asks for a code, never the one spent', async () => {
    const ctx = t();
    const u = await signedInUser(ctx);
    const created = await start(u);
    const spent = created.code();
    expect((await u.post(confirmUrl(u, created.id), { code: ` ${spent} ` })).statusCode).toBe(204);
    expect((await u.get('/api/user')).json().totp).toEqual({ id: created.id });
    // Once on, it is not confirmed again, and its QR code is gone.
    expect((await u.post(confirmUrl(u, created.id), { code: created.code(1) })).statusCode).toBe(409);
    expect((await u.get(`/api/users/${u.id}/2fas/totp/${created.id}/qr`)).statusCode).toBe(404);

    const pending = await passwordOnly(ctx, u);
    expect((await pending.get('/api/user')).json()).toMatchObject({ error: 'TOTP_REQUIRED', code: 'totp_required' });
    expect((await pending.post('/api/auth/verify', { passcode: spent })).statusCode).toBe(401);
    expect((await pending.post('/api/auth/verify', { passcode: created.code(1) })).statusCode).toBe(204);
    expect((await pending.get('/api/user')).json()).toMatchObject({ id: u.id, totp: { id: created.id } });
    const events = await ctx.db.db
      .selectFrom('event')
      .select('description')
      .where('object_id', '=', u.id)
      .where('object_type', '=', 'user')
      .execute();
    expect(events.map((e) => e.description)).toEqual([`Two-factor sign-in enabled for ${u.username}`]);
  });

  it('replaces a method left waiting for its code with a new one', async () => {
    const ctx = t();
    const u = await signedInUser(ctx);
    const first = await start(u);
    const second = await start(u);
    expect(second.id).not.toBe(first.id);
    expect(second.secret).not.toBe(first.secret);
    expect((await u.post(confirmUrl(u, first.id), { code: first.code() })).statusCode).toBe(404);
    expect((await u.get(`/api/users/${u.id}/2fas/totp/${first.id}/qr`)).statusCode).toBe(404);
    expect((await u.post(confirmUrl(u, second.id), { code: second.code() })).statusCode).toBe(204);
    expect((await u.get('/api/user')).json().totp).toEqual({ id: second.id });
    // An enabled one is not replaced.
    expect((await u.post(`/api/users/${u.id}/2fas/totp`, { password: u.password })).statusCode).toBe(409);
  });

  it("lets only the user confirm their own method; an admin's for another user is on at once", async () => {
    const ctx = t();
    const u = await signedInUser(ctx);
    const admin = await signedInUser(ctx, { admin: true });
    const other = await signedInUser(ctx);
    const created = await start(u);
    expect((await admin.post(confirmUrl(u, created.id), { code: created.code() })).statusCode).toBe(403);
    expect((await other.post(confirmUrl(u, created.id), { code: created.code() })).statusCode).toBe(404);
    expect((await u.get('/api/user')).json().totp).toBeNull();

    // Semaphore's one step: an admin enables another user's method, which sign-in asks for at once.
    const byAdmin = await admin.post(`/api/users/${other.id}/2fas/totp`);
    expect(byAdmin.statusCode).toBe(201);
    expect(byAdmin.json()).toEqual({ id: expect.any(Number), recovery_code: expect.any(String), confirmed: true });
    const pending = await passwordOnly(ctx, other);
    expect((await pending.get('/api/user')).json()).toEqual({ error: 'TOTP_REQUIRED', code: 'totp_required' });
  });
});
