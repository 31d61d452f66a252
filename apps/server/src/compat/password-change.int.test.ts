import { ErrorCodes, Messages, SESSION_COOKIE } from '@gantry/contracts';
import { Secret, TOTP } from 'otpauth';
import { describe, expect, it } from 'vitest';
import { RECENT_SIGN_IN_MS } from '../modules/users/users.service.js';
import { SecretBox, sha256 } from '../platform/crypto.js';
import { callerFor, engines, signedInUser, useTestApp, type Caller, type TestContext } from '../test/harness.js';
import { apiToken, semaphoreRequest } from './tasks-client.js';

const login = (ctx: TestContext, auth: string, password: string) =>
  ctx.app.inject({ method: 'POST', url: '/api/auth/login', payload: { auth, password } });

/** Moves the session's sign-in `ms` into the past (the harness has no clock to move). */
async function signedInAgo(ctx: TestContext, who: Caller, ms: number): Promise<void> {
  const at = new Date(Date.now() - ms).toISOString();
  await ctx.db.db.updateTable('session').set({ signed_in: at }).where('id', '=', sha256(who.cookie)).execute();
}

const refused = { error: Messages.recentSignInRequired, code: ErrorCodes.recentSignInRequired, field: 'current_password' };

describe.each(engines)("compat: changing one's own password from Semaphore's console ($name)", (engine) => {
  const t = useTestApp(engine);

  it('takes the new password alone right after sign-in, and signs the user out everywhere else', async () => {
    const me = await signedInUser(t());
    const elsewhere = callerFor(t(), {
      ...me,
      cookie: (await login(t(), me.username, me.password)).cookies.find((c) => c.name === SESSION_COOKIE)!.value,
    });
    const token = await apiToken(me);
    // Semaphore's change-password form posts `{password}` (its form base adds project_id, undefined here).
    const res = await semaphoreRequest(t(), { caller: me }, 'POST', `/api/users/${me.id}/password`, {
      password: 'fresh-pass-1',
    });
    expect(res.statusCode).toBe(204);
    expect((await login(t(), me.username, 'fresh-pass-1')).statusCode).toBe(204);
    expect((await login(t(), me.username, me.password)).statusCode).toBe(401);
    // The caller's own session goes on under a new cookie value; the other session and the token are out.
    const rotated = res.cookies.find((c) => c.name === SESSION_COOKIE)?.value;
    expect(rotated).toBeTruthy();
    expect((await callerFor(t(), { ...me, cookie: rotated! }).get('/api/user')).json()).toMatchObject({ id: me.id });
    expect((await elsewhere.get('/api/user')).statusCode).toBe(401);
    expect((await semaphoreRequest(t(), { token }, 'GET', '/api/user')).statusCode).toBe(401);
  });

  it('takes the same change through PUT /api/users/{id} right after sign-in', async () => {
    const me = await signedInUser(t());
    const res = await semaphoreRequest(t(), { caller: me }, 'PUT', `/api/users/${me.id}`, {
      name: 'Me',
      username: me.username,
      email: `${me.username}@example.com`,
      alert: false,
      password: 'put-pass-1',
    });
    expect(res.statusCode).toBe(204);
    expect((await login(t(), me.username, 'put-pass-1')).statusCode).toBe(204);
  });

  it('refuses the new password alone from a session signed in 11 minutes ago, though active just now', async () => {
    const me = await signedInUser(t());
    await signedInAgo(t(), me, 11 * 60_000);
    // Its last activity is now: what counts is when it signed in.
    expect((await me.get('/api/user')).statusCode).toBe(200);
    const res = await semaphoreRequest(t(), { caller: me }, 'POST', `/api/users/${me.id}/password`, {
      password: 'late-pass-1',
    });
    expect([res.statusCode, res.json()]).toEqual([400, refused]);
    expect((await login(t(), me.username, 'late-pass-1')).statusCode).toBe(401);
    expect((await login(t(), me.username, me.password)).statusCode).toBe(204);
    expect((await me.get('/api/user')).statusCode).toBe(200);
    // Just inside the window it is taken; with the current password the age does not matter.
    const inside = await signedInUser(t());
    await signedInAgo(t(), inside, RECENT_SIGN_IN_MS - 30_000);
    expect((await inside.post(`/api/users/${inside.id}/password`, { password: 'inside-1' })).statusCode).toBe(204);
    const ok = await me.post(`/api/users/${me.id}/password`, {
      password: 'late-pass-1',
      current_password: me.password,
    });
    expect(ok.statusCode).toBe(204);
    expect((await login(t(), me.username, 'late-pass-1')).statusCode).toBe(204);
  });

  it('never counts an API token as a recent sign-in', async () => {
    const me = await signedInUser(t());
    const token = await apiToken(me);
    const res = await semaphoreRequest(t(), { token }, 'POST', `/api/users/${me.id}/password`, {
      password: 'tok-pass-1',
    });
    expect([res.statusCode, res.json()]).toEqual([400, refused]);
    // PUT with a password is the same change.
    const put = await semaphoreRequest(t(), { token }, 'PUT', `/api/users/${me.id}`, {
      name: 'Renamed',
      username: me.username,
      email: `${me.username}@example.com`,
      password: 'tok-pass-1',
    });
    expect([put.statusCode, put.json()]).toEqual([400, refused]);
    expect((await me.get('/api/user')).json()).toMatchObject({ name: `Name ${me.username}` });
    expect((await login(t(), me.username, me.password)).statusCode).toBe(204);
    // With the current password a token may, as before.
    const ok = await semaphoreRequest(t(), { token }, 'POST', `/api/users/${me.id}/password`, {
      password: 'tok-pass-1',
      current_password: me.password,
    });
    expect(ok.statusCode).toBe(204);
    expect((await login(t(), me.username, 'tok-pass-1')).statusCode).toBe(204);
  });

  it('refuses a wrong current password with the existing error, even right after sign-in', async () => {
    const me = await signedInUser(t());
    const res = await semaphoreRequest(t(), { caller: me }, 'POST', `/api/users/${me.id}/password`, {
      password: 'wrong-pass-1',
      current_password: 'not-it',
    });
    expect([res.statusCode, res.json()]).toEqual([400, { error: Messages.incorrectCurrentPassword, code: 'current_password_incorrect', field: 'current_password' }]);
    expect((await login(t(), me.username, me.password)).statusCode).toBe(204);
  });

  it("keeps the admin's rule for another user's password: no current password, from a token too", async () => {
    const admin = await signedInUser(t(), { admin: true });
    await signedInAgo(t(), admin, 60 * 60_000);
    const other = await signedInUser(t());
    const token = await apiToken(admin);
    const res = await semaphoreRequest(t(), { token }, 'POST', `/api/users/${other.id}/password`, {
      password: 'reset-1',
    });
    expect(res.statusCode).toBe(204);
    expect((await login(t(), other.username, 'reset-1')).statusCode).toBe(204);
    expect((await admin.post(`/api/users/${other.id}/password`, { password: 'reset-2' })).statusCode).toBe(204);
    expect((await login(t(), other.username, 'reset-2')).statusCode).toBe(204);
  });
});

describe.each(engines)("compat: changing one's own password after two-factor sign-in ($name)", (engine) => {
  const t = useTestApp(engine, { GANTRY_TOTP_ENABLED: 'true' });

  it('counts the sign-in from the verification code, not from the password before it', async () => {
    const ctx = t();
    const u = await signedInUser(ctx);
    expect((await u.post(`/api/users/${u.id}/2fas/totp`, { password: u.password })).statusCode).toBe(201);
    const row = await ctx.db.db
      .selectFrom('user_totp')
      .select(['id', 'secret'])
      .where('user_id', '=', u.id)
      .executeTakeFirstOrThrow();
    const totp = new TOTP({ secret: Secret.fromBase32(new SecretBox(ctx.secretKey).open(row.secret)) });
    // One's own method goes on once a code confirmed it (the previous step's: the current one stays unspent).
    let confirmed = 0;
    for (let i = 0; i < 3 && confirmed !== 204; i++) {
      const confirm = { code: totp.generate({ timestamp: Date.now() - 30_000 }) };
      confirmed = (await u.post(`/api/users/${u.id}/2fas/totp/${row.id}/confirm`, confirm)).statusCode;
    }
    expect(confirmed).toBe(204);
    const res = await login(ctx, u.username, u.password);
    const pending = callerFor(ctx, { ...u, cookie: res.cookies.find((c) => c.name === SESSION_COOKIE)!.value });
    // The password was typed 12 minutes ago; the code is given now.
    const typed = new Date(Date.now() - 12 * 60_000).toISOString();
    await ctx.db.db.updateTable('session').set({ created: typed }).where('id', '=', sha256(pending.cookie)).execute();
    expect((await pending.post(`/api/users/${u.id}/password`, { password: 'early' })).statusCode).toBe(401);
    expect((await pending.post('/api/auth/verify', { passcode: totp.generate() })).statusCode).toBe(204);
    const changed = await semaphoreRequest(ctx, { caller: pending }, 'POST', `/api/users/${u.id}/password`, {
      password: 'after-code-1',
    });
    expect(changed.statusCode).toBe(204);
    expect((await login(ctx, u.username, 'after-code-1')).statusCode).toBe(204);
  });
});
