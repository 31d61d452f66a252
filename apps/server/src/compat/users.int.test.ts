import { ErrorCodes, Messages, SESSION_COOKIE } from '@gantry/contracts';
import { describe, expect, it } from 'vitest';
import { sha256 } from '../platform/crypto.js';
import { engines, signedInUser, uniq, useTestApp, type TestContext } from '../test/harness.js';
import { scriptClient } from './script-client.js';

const login = (ctx: TestContext, auth: string, password: string) =>
  ctx.app.inject({
    method: 'POST',
    url: '/api/auth/login',
    headers: { 'content-type': 'application/json' },
    payload: JSON.stringify({ auth, password }),
  });

describe.each(engines)('compat: users as Semaphore clients manage them ($name)', (engine) => {
  const t = useTestApp(engine);

  it("sets another user's password on PUT /api/users/{id} (admin) and signs that user out everywhere", async () => {
    const admin = await scriptClient(t(), await signedInUser(t(), { admin: true }));
    const other = await signedInUser(t());
    const otherToken = await scriptClient(t(), other);
    const body = {
      name: 'Other',
      username: other.username,
      email: `${other.username}@example.com`,
      alert: false,
      admin: false,
      external: false,
      password: 'new-pass-1',
    };
    const res = await admin.send('PUT', `/api/users/${other.id}`, body);
    expect(res.statusCode).toBe(204);
    expect((await login(t(), other.username, other.password)).statusCode).toBe(401);
    expect((await login(t(), other.username, 'new-pass-1')).statusCode).toBe(204);
    // The user's old session and API token no longer work.
    expect((await other.get('/api/user')).statusCode).toBe(401);
    expect((await otherToken.send('GET', '/api/user')).statusCode).toBe(401);
    expect((await admin.send('GET', `/api/users/${other.id}`)).json().name).toBe('Other');
    // An empty password (as a form sends for "unchanged") changes nothing.
    expect((await admin.send('PUT', `/api/users/${other.id}`, { ...body, password: '' })).statusCode).toBe(204);
    expect((await login(t(), other.username, 'new-pass-1')).statusCode).toBe(204);
  });

  it("refuses a password change of one's own without the current password from a session not signed in recently, with a clear 400, changing nothing", async () => {
    const me = await signedInUser(t());
    const body = { name: 'Me renamed', username: me.username, email: `${me.username}@example.com`, password: 'mine-2' };
    const earlier = new Date(Date.now() - 11 * 60_000).toISOString();
    await t().db.db.updateTable('session').set({ signed_in: earlier }).where('id', '=', sha256(me.cookie)).execute();
    const without = await me.put(`/api/users/${me.id}`, body);
    expect(without.statusCode).toBe(400);
    expect(without.json()).toEqual({ error: Messages.recentSignInRequired, code: ErrorCodes.recentSignInRequired, field: 'current_password' });
    const wrong = await me.put(`/api/users/${me.id}`, { ...body, current_password: 'not-it' });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json()).toEqual({ error: Messages.incorrectCurrentPassword, code: 'current_password_incorrect', field: 'current_password' });
    expect((await me.get(`/api/users/${me.id}`)).json().name).toBe(`Name ${me.username}`);
    expect((await login(t(), me.username, me.password)).statusCode).toBe(204);

    const ok = await me.put(`/api/users/${me.id}`, { ...body, current_password: me.password });
    expect(ok.statusCode).toBe(204);
    // The caller's own session survives under a new cookie value; the old value is gone.
    const rotated = ok.cookies.find((c) => c.name === SESSION_COOKIE)?.value;
    expect(rotated).toBeTruthy();
    expect((await me.get('/api/user')).statusCode).toBe(401);
    const again = await t().app.inject({ method: 'GET', url: '/api/user', cookies: { [SESSION_COOKIE]: rotated! } });
    expect(again.json()).toMatchObject({ id: me.id, name: 'Me renamed' });
    expect((await login(t(), me.username, 'mine-2')).statusCode).toBe(204);
  });

  it('creates a user without a password (201), who cannot sign in with one until it is set', async () => {
    const admin = await scriptClient(t(), await signedInUser(t(), { admin: true }));
    const username = uniq('nopw');
    const created = await admin.send('POST', '/api/users', {
      name: 'No password',
      username,
      email: `${username}@example.com`,
      alert: false,
      admin: false,
      external: false,
    });
    expect(created.statusCode).toBe(201);
    expect(created.json()).toMatchObject({ username, external: false, admin: false });
    expect(Object.keys(created.json())).not.toContain('password');
    for (const password of ['', 'anything']) {
      const refused = await login(t(), username, password);
      expect(refused.statusCode).toBe(password ? 401 : 400);
      if (password) expect(refused.json()).toEqual({ error: Messages.incorrectLogin, code: 'incorrect_login' });
    }
    const id = created.json().id as number;
    const set = await admin.send('PUT', `/api/users/${id}`, {
      name: 'No password',
      username,
      email: `${username}@example.com`,
      password: 'given-later',
    });
    expect(set.statusCode).toBe(204);
    expect((await login(t(), username, 'given-later')).statusCode).toBe(204);
  });

  it('refuses a password for an external user', async () => {
    const admin = await scriptClient(t(), await signedInUser(t(), { admin: true }));
    const username = uniq('ext');
    const created = await admin.send('POST', '/api/users', {
      name: 'Ext',
      username,
      email: `${username}@example.com`,
      external: true,
    });
    expect(created.statusCode).toBe(201);
    const res = await admin.send('PUT', `/api/users/${created.json().id}`, {
      name: 'Ext',
      username,
      email: `${username}@example.com`,
      password: 'nope',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: 'External users have no password here', code: 'external_user_no_password' });
    expect((await login(t(), username, 'nope')).statusCode).toBe(401);
  });
});
