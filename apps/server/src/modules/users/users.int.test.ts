import { describe, expect, it } from 'vitest';
import type { ProjectRole } from '@gantry/contracts';
import { sha256 } from '../../platform/crypto.js';
import { addMember, createProject, engines, signedInUser, uniq, useTestApp } from '../../test/harness.js';

const newUser = (over: Record<string, unknown> = {}) => {
  const username = uniq('nu');
  return { name: `N ${username}`, username, email: `${username}@example.com`, password: 'secret-pass', ...over };
};

describe.each(engines)('users ($name)', (engine) => {
  const t = useTestApp(engine);

  it('lets an admin create, read, update and delete users, never returning the password', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const body = newUser({ alert: true });
    const created = await admin.post('/api/users', body);
    expect(created.statusCode).toBe(201);
    const user = created.json();
    expect(user).toMatchObject({ name: body.name, username: body.username, email: body.email, alert: true, admin: false, external: false });
    expect(created.body).not.toContain('secret-pass');
    expect(Object.keys(user)).not.toContain('password');

    const list = await admin.get('/api/users');
    expect(list.json().map((u: { id: number }) => u.id)).toContain(user.id);
    expect(list.body).not.toMatch(/scrypt|secret-pass/);

    const put = await admin.put(`/api/users/${user.id}`, { ...body, name: 'Renamed', admin: true });
    expect(put.statusCode).toBe(204);
    expect((await admin.get(`/api/users/${user.id}`)).json()).toMatchObject({ name: 'Renamed', admin: true });

    expect((await admin.del(`/api/users/${user.id}`)).statusCode).toBe(204);
    expect((await admin.get(`/api/users/${user.id}`)).statusCode).toBe(404);
  });

  it('stores a slow salted hash, and the new user can sign in', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const body = newUser();
    const id = (await admin.post('/api/users', body)).json().id;
    const row = await t().db.db.selectFrom('user').select('password').where('id', '=', id).executeTakeFirstOrThrow();
    expect(row.password).toMatch(/^scrypt\$32768\$8\$1\$/);
    expect(row.password).not.toContain(body.password);
    const login = await t().app.inject({ method: 'POST', url: '/api/auth/login', payload: { auth: body.username, password: body.password } });
    expect(login.statusCode).toBe(204);
  });

  it.each([
    [{ name: '' }, 'Name is required'],
    [{ name: '   ' }, 'Name is required'],
    [{ username: undefined }, 'Username is required'],
    [{ email: '' }, 'Email is required'],
    [{ email: 'not-an-email' }, 'Email is invalid'],
    // A missing password is accepted (Semaphore clients create such users): see compat/users.int.test.ts.
  ])('rejects %o with "%s" and creates nothing', async (over, message) => {
    const admin = await signedInUser(t(), { admin: true });
    const before = (await admin.get('/api/users')).json().length;
    const res = await admin.post('/api/users', newUser(over));
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: message, code: expect.any(String), field: expect.any(String) });
    expect((await admin.get('/api/users')).json()).toHaveLength(before);
  });

  it('does not need a password for an external user', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const res = await admin.post('/api/users', newUser({ password: undefined, external: true }));
    expect(res.statusCode).toBe(201);
    expect(res.json().external).toBe(true);
  });

  it('refuses duplicate usernames and emails with 409', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const body = newUser();
    await admin.post('/api/users', body);
    const dupName = await admin.post('/api/users', newUser({ username: body.username.toUpperCase() }));
    expect(dupName.statusCode).toBe(409);
    expect(dupName.json()).toEqual({ error: 'Username is already taken', code: 'username_taken' });
    const dupMail = await admin.post('/api/users', newUser({ email: body.email }));
    expect(dupMail.json()).toEqual({ error: 'Email is already taken', code: 'email_taken' });
  });

  it('lets a user edit their own profile but not their admin flag, nor anyone else', async () => {
    const ctx = t();
    const me = await signedInUser(ctx);
    const other = await signedInUser(ctx);
    const self = (await me.get(`/api/users/${me.id}`)).json();
    const ok = await me.put(`/api/users/${me.id}`, { ...self, name: 'Me Myself', alert: true });
    expect(ok.statusCode).toBe(204);
    expect((await me.get('/api/user')).json()).toMatchObject({ name: 'Me Myself', alert: true, admin: false });

    const promote = await me.put(`/api/users/${me.id}`, { ...self, admin: true });
    expect(promote.statusCode).toBe(403);
    expect((await me.get('/api/user')).json().admin).toBe(false);

    expect((await me.get(`/api/users/${other.id}`)).statusCode).toBe(404);
    expect((await me.put(`/api/users/${other.id}`, { ...self, username: uniq('x'), email: `${uniq('x')}@e.com` })).statusCode).toBe(404);
    expect((await me.del(`/api/users/${other.id}`)).statusCode).toBe(403);
    expect((await me.post('/api/users', newUser())).statusCode).toBe(403);
  });

  it('lists users to project owners and managers as names only (team candidates), to other non-admins not at all', async () => {
    const ctx = t();
    const admin = await signedInUser(ctx, { admin: true });
    const projectId = await createProject(admin);
    const callers = { owner: await signedInUser(ctx), manager: await signedInUser(ctx), task_runner: await signedInUser(ctx), guest: await signedInUser(ctx) };
    for (const [role, c] of Object.entries(callers)) await addMember(ctx, projectId, c.id, role as ProjectRole);
    const nobody = await signedInUser(ctx);

    for (const c of [callers.owner, callers.manager]) {
      const res = await c.get('/api/users');
      expect(res.statusCode).toBe(200);
      const list = res.json<{ id: number }[]>();
      expect(list.map((u) => u.id)).toEqual(expect.arrayContaining([admin.id, nobody.id]));
      for (const u of list) expect(Object.keys(u).sort()).toEqual(['id', 'name', 'username']);
      expect(res.body).not.toContain('@example.com');
    }
    for (const c of [callers.task_runner, callers.guest, nobody]) {
      const res = await c.get('/api/users');
      expect(res.statusCode).toBe(403);
      expect(res.json()).toEqual({ error: 'Only administrators and project owners or managers can list users', code: 'users_list_forbidden' });
      // Only themselves, one by one.
      expect((await c.get(`/api/users/${c.id}`)).statusCode).toBe(200);
      expect((await c.get(`/api/users/${admin.id}`)).statusCode).toBe(404);
    }
  });

  it('requires the current password to change your own (or a recent sign-in), not for an admin resetting another', async () => {
    const ctx = t();
    const me = await signedInUser(ctx);
    const earlier = new Date(Date.now() - 11 * 60_000).toISOString();
    await ctx.db.db.updateTable('session').set({ signed_in: earlier }).where('id', '=', sha256(me.cookie)).execute();
    const missing = await me.post(`/api/users/${me.id}/password`, { password: 'new-one-1' });
    expect(missing.statusCode).toBe(400);
    expect(missing.json()).toEqual({ error: 'Sign in again to change your password', code: 'recent_sign_in_required', field: 'current_password' });
    const wrong = await me.post(`/api/users/${me.id}/password`, { password: 'new-one-1', current_password: 'bad' });
    expect(wrong.json()).toEqual({ error: 'Current password is incorrect', code: 'current_password_incorrect', field: 'current_password' });
    const empty = await me.post(`/api/users/${me.id}/password`, { password: '', current_password: me.password });
    expect(empty.json()).toEqual({ error: 'Password is required', code: 'field_required', label_key: 'password', field: 'password' });
    const ok = await me.post(`/api/users/${me.id}/password`, { password: 'new-one-1', current_password: me.password });
    expect(ok.statusCode).toBe(204);
    const login = (password: string) =>
      ctx.app.inject({ method: 'POST', url: '/api/auth/login', payload: { auth: me.username, password } });
    expect((await login('new-one-1')).statusCode).toBe(204);

    const admin = await signedInUser(ctx, { admin: true });
    expect((await admin.post(`/api/users/${me.id}/password`, { password: 'reset-by-admin' })).statusCode).toBe(204);
    expect((await login('reset-by-admin')).statusCode).toBe(204);
    const other = await signedInUser(ctx);
    expect((await other.post(`/api/users/${me.id}/password`, { password: 'hijack', current_password: 'x' })).statusCode).toBe(404);
  });

  it('refuses deleting yourself, and 404s unknown ids', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const self = await admin.del(`/api/users/${admin.id}`);
    expect(self.statusCode).toBe(409);
    expect((await admin.get('/api/users/999999')).statusCode).toBe(404);
    expect((await admin.get('/api/users/abc')).statusCode).toBe(400);
  });

  it('does not let an external user change email', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const body = newUser({ password: undefined, external: true });
    const id = (await admin.post('/api/users', body)).json().id;
    const res = await admin.put(`/api/users/${id}`, { ...body, email: 'changed@example.com' });
    expect(res.statusCode).toBe(400);
    const flip = await admin.put(`/api/users/${id}`, { ...body, external: false });
    expect(flip.statusCode).toBe(400);
  });
});
