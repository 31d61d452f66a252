import { describe, expect, it } from 'vitest';
import { engines, signedInUser, useTestApp } from '../../test/harness.js';

describe.each(engines)('API tokens ($name)', (engine) => {
  const t = useTestApp(engine);
  const bearer = (token: string) => t().app.inject({ method: 'GET', url: '/api/user', headers: { authorization: `Bearer ${token}` } });

  it('shows the value only in the creation answer and stores only a hash', async () => {
    const u = await signedInUser(t());
    const created = await u.post('/api/user/tokens');
    expect(created.statusCode).toBe(201);
    const { id: value, token_id, expired } = created.json();
    expect(value).toHaveLength(44);
    expect(value.startsWith(token_id)).toBe(true);
    expect(expired).toBe(false);

    const list = await u.get('/api/user/tokens');
    expect(list.json()).toEqual([{ id: token_id, token_id, created: expect.any(String), expired: false }]);
    expect(list.body).not.toContain(value);

    const rows = await t().db.db.selectFrom('api_token').selectAll().where('user_id', '=', u.id).execute();
    expect(JSON.stringify(rows)).not.toContain(value);
    expect((await bearer(value)).json().id).toBe(u.id);
  });

  it('stops working at once when deleted: expired first, removed on a second delete', async () => {
    const u = await signedInUser(t());
    const { id: value, token_id } = (await u.post('/api/user/tokens')).json();
    expect((await bearer(value)).statusCode).toBe(200);
    expect((await u.del(`/api/user/tokens/${token_id}`)).statusCode).toBe(204);
    expect((await bearer(value)).statusCode).toBe(401);
    expect((await u.get('/api/user/tokens')).json()[0].expired).toBe(true);
    expect((await u.del(`/api/user/tokens/${token_id}`)).statusCode).toBe(204);
    expect((await u.get('/api/user/tokens')).json()).toEqual([]);
  });

  it('accepts the whole value as id on delete, as clients of the peer API send it', async () => {
    const u = await signedInUser(t());
    const { id: value } = (await u.post('/api/user/tokens')).json();
    expect((await u.del(`/api/user/tokens/${value}`)).statusCode).toBe(204);
    expect((await bearer(value)).statusCode).toBe(401);
  });

  it("never lists or deletes another user's tokens", async () => {
    const a = await signedInUser(t());
    const b = await signedInUser(t());
    const { id: value, token_id } = (await a.post('/api/user/tokens')).json();
    expect((await b.get('/api/user/tokens')).json()).toEqual([]);
    expect((await b.del(`/api/user/tokens/${token_id}`)).statusCode).toBe(404);
    expect((await bearer(value)).statusCode).toBe(200);
  });

  it('rejects a forged token with the right public id', async () => {
    const u = await signedInUser(t());
    const { id: value } = (await u.post('/api/user/tokens')).json();
    const forged = value.slice(0, 8) + 'x'.repeat(36);
    expect((await bearer(forged)).statusCode).toBe(401);
  });

  it('a token deleted user loses access', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const u = await signedInUser(t());
    const { id: value } = (await u.post('/api/user/tokens')).json();
    expect((await admin.del(`/api/users/${u.id}`)).statusCode).toBe(204);
    expect((await bearer(value)).statusCode).toBe(401);
  });
});
