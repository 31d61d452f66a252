import { SESSION_COOKIE } from '@gantry/contracts';
import { describe, expect, it } from 'vitest';
import { callerFor, engines, signedInUser, useTestApp, type Caller, type TestContext } from '../../test/harness.js';

/** A second session of the same user, as from another browser. */
async function anotherSession(ctx: TestContext, u: Caller, password = u.password): Promise<Caller> {
  const res = await ctx.app.inject({ method: 'POST', url: '/api/auth/login', payload: { auth: u.username, password } });
  expect(res.statusCode).toBe(204);
  return callerFor(ctx, { ...u, password, cookie: res.cookies.find((c) => c.name === SESSION_COOKIE)!.value });
}

async function tokenOf(u: Caller): Promise<string> {
  const res = await u.post('/api/user/tokens');
  expect(res.statusCode).toBe(201);
  return res.json<{ id: string }>().id;
}

function bearer(ctx: TestContext, token: string) {
  return ctx.app.inject({ method: 'GET', url: '/api/user', headers: { authorization: `Bearer ${token}` } });
}

/** The user ids the bus announced as changed while `fn` ran (the socket hub listens to these). */
async function changedDuring(ctx: TestContext, fn: () => Promise<unknown>): Promise<number[]> {
  const seen: number[] = [];
  const off = ctx.app.services.bus.onUserChanged((id) => seen.push(id));
  try {
    await fn();
  } finally {
    off();
  }
  return seen;
}

describe.each(engines)('revoking sessions and tokens ($name)', (engine) => {
  const t = useTestApp(engine);

  it('a password set from the command line signs the user out; setting the same password again does not', async () => {
    const ctx = t();
    const me = await signedInUser(ctx);
    const token = await tokenOf(me);
    // Start-up sets GANTRY_ADMIN_PASSWORD at every start: the same password keeps sessions.
    await ctx.app.services.users.resetPassword(me.id, me.password);
    expect((await me.get('/api/user')).statusCode).toBe(200);
    expect((await bearer(ctx, token)).statusCode).toBe(200);
    // `gantry user change-by-login` with a new password: every session and token goes.
    const changed = await changedDuring(ctx, () => ctx.app.services.users.resetPassword(me.id, 'cli-new-pass-1'));
    expect(changed).toEqual([me.id]);
    expect((await me.get('/api/user')).statusCode).toBe(401);
    expect((await bearer(ctx, token)).statusCode).toBe(401);
  });

  it('a password change signs the user out everywhere else and rotates the session that made it', async () => {
    const ctx = t();
    const me = await signedInUser(ctx);
    const laptop = await anotherSession(ctx, me);
    const token = await tokenOf(me);
    expect((await laptop.get('/api/user')).statusCode).toBe(200);

    let res = await me.get('/api/user');
    const changed = await changedDuring(ctx, async () => {
      res = await me.post(`/api/users/${me.id}/password`, { password: 'new-pass-1', current_password: me.password });
    });
    expect(res.statusCode).toBe(204);
    expect(changed).toEqual([me.id]);

    // The other session and the token are gone; the token shows as expired.
    expect((await laptop.get('/api/user')).statusCode).toBe(401);
    expect((await bearer(ctx, token)).statusCode).toBe(401);
    // The caller's own session got a new value in the answer: the old value is dead, the new one works.
    const cookie = res.cookies.find((c) => c.name === SESSION_COOKIE);
    expect(cookie?.httpOnly).toBe(true);
    expect(cookie?.value).toBeTruthy();
    expect(cookie?.value).not.toBe(me.cookie);
    expect((await me.get('/api/user')).statusCode).toBe(401);
    const rotated = callerFor(ctx, { ...me, cookie: cookie!.value });
    expect((await rotated.get('/api/user')).json()).toMatchObject({ id: me.id });
    expect((await rotated.get('/api/user/tokens')).json()).toEqual([
      expect.objectContaining({ token_id: token.slice(0, 8), expired: true }),
    ]);
    const sessions = await ctx.db.db.selectFrom('session').select('id').where('user_id', '=', me.id).execute();
    expect(sessions).toHaveLength(1);
  });

  it('a wrong current password revokes nothing', async () => {
    const ctx = t();
    const me = await signedInUser(ctx);
    const laptop = await anotherSession(ctx, me);
    const token = await tokenOf(me);
    const res = await me.post(`/api/users/${me.id}/password`, { password: 'x-new', current_password: 'wrong' });
    expect(res.statusCode).toBe(400);
    expect(res.cookies).toHaveLength(0);
    for (const c of [me, laptop]) expect((await c.get('/api/user')).statusCode).toBe(200);
    expect((await bearer(ctx, token)).statusCode).toBe(200);
  });

  it("an admin's password reset ends all of the user's sessions and tokens, not the admin's", async () => {
    const ctx = t();
    const admin = await signedInUser(ctx, { admin: true });
    const u = await signedInUser(ctx);
    const second = await anotherSession(ctx, u);
    const token = await tokenOf(u);
    const adminToken = await tokenOf(admin);
    let res = await admin.get('/api/user');
    const changed = await changedDuring(ctx, async () => {
      res = await admin.post(`/api/users/${u.id}/password`, { password: 'reset-2' });
    });
    expect(res.statusCode).toBe(204);
    expect(changed).toEqual([u.id]);
    expect(res.cookies).toHaveLength(0);
    for (const c of [u, second]) expect((await c.get('/api/user')).statusCode).toBe(401);
    expect((await bearer(ctx, token)).statusCode).toBe(401);
    expect((await admin.get('/api/user')).statusCode).toBe(200);
    expect((await bearer(ctx, adminToken)).statusCode).toBe(200);
    // The new password opens a new session.
    expect((await (await anotherSession(ctx, u, 'reset-2')).get('/api/user')).statusCode).toBe(200);
  });

  it('taking the admin flag away signs the user out and takes effect at once', async () => {
    const ctx = t();
    const admin = await signedInUser(ctx, { admin: true });
    const other = await signedInUser(ctx, { admin: true });
    const token = await tokenOf(other);
    expect((await other.get('/api/users')).statusCode).toBe(200);
    const self = (await admin.get(`/api/users/${other.id}`)).json();

    // Renaming keeps them signed in; demoting does not.
    expect((await admin.put(`/api/users/${other.id}`, { ...self, name: 'Still admin' })).statusCode).toBe(204);
    expect((await other.get('/api/user')).statusCode).toBe(200);
    let res = await admin.get('/api/user');
    const changed = await changedDuring(ctx, async () => {
      res = await admin.put(`/api/users/${other.id}`, { ...self, admin: false });
    });
    expect(res.statusCode).toBe(204);
    expect(changed).toEqual([other.id]);
    expect((await other.get('/api/user')).statusCode).toBe(401);
    expect((await bearer(ctx, token)).statusCode).toBe(401);
    const again = await anotherSession(ctx, other);
    expect((await again.get('/api/user')).json().admin).toBe(false);
    expect((await again.get('/api/users')).statusCode).toBe(403);
  });

  it('an admin who demotes themself keeps a rotated session', async () => {
    const ctx = t();
    await signedInUser(ctx, { admin: true }); // someone stays admin
    const me = await signedInUser(ctx, { admin: true });
    const elsewhere = await anotherSession(ctx, me);
    const body = (await me.get(`/api/users/${me.id}`)).json();
    const res = await me.put(`/api/users/${me.id}`, { ...body, admin: false });
    expect(res.statusCode).toBe(204);
    const cookie = res.cookies.find((c) => c.name === SESSION_COOKIE)!.value;
    expect((await elsewhere.get('/api/user')).statusCode).toBe(401);
    expect((await me.get('/api/user')).statusCode).toBe(401);
    expect((await callerFor(ctx, { ...me, cookie }).get('/api/user')).json()).toMatchObject({
      id: me.id,
      admin: false,
    });
  });

  it('announces a deleted user, logout and token deletion to the socket hub', async () => {
    const ctx = t();
    const admin = await signedInUser(ctx, { admin: true });
    const u = await signedInUser(ctx);
    const token = await tokenOf(u);
    expect(await changedDuring(ctx, () => u.del(`/api/user/tokens/${token.slice(0, 8)}`))).toEqual([u.id]);
    expect(await changedDuring(ctx, () => u.post('/api/auth/logout'))).toEqual([u.id]);
    const v = await signedInUser(ctx);
    expect(await changedDuring(ctx, () => admin.del(`/api/users/${v.id}`))).toEqual([v.id]);
    expect((await v.get('/api/user')).statusCode).toBe(401);
  });
});
