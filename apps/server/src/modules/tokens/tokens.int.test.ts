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
    expect(list.json()).toEqual([{ id: token_id, token_id, user_id: u.id, created: expect.any(String), expired: false, expires: null }]);
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

  it.each([30, 90, 365])('gives a token a lifetime of %i days when asked, shown in the list', async (days) => {
    const u = await signedInUser(t());
    const before = Date.now();
    const created = await u.post('/api/user/tokens', { expires_in_days: days });
    expect(created.statusCode).toBe(201);
    const { id: value, token_id, expires } = created.json();
    const lifetime = Date.parse(expires) - before;
    expect(lifetime).toBeGreaterThanOrEqual(days * 86_400_000);
    expect(lifetime).toBeLessThan(days * 86_400_000 + 60_000);
    expect((await u.get('/api/user/tokens')).json()).toEqual([{ id: token_id, token_id, user_id: u.id, created: expect.any(String), expired: false, expires }]);
    expect((await bearer(value)).statusCode).toBe(200);
  });

  it('stops accepting a token once its lifetime is over, and lists it as expired', async () => {
    const u = await signedInUser(t());
    const { id: value, token_id } = (await u.post('/api/user/tokens', { expires_in_days: 30 })).json();
    const past = new Date(Date.now() - 1000).toISOString();
    await t().db.db.updateTable('api_token').set({ expires: past }).where('token_id', '=', token_id).execute();
    const res = await bearer(value);
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({ error: 'Invalid or expired token', code: 'token_invalid' });
    expect((await u.get('/api/user/tokens')).json()).toEqual([expect.objectContaining({ token_id, expired: true, expires: past })]);
    // Deleting an expired token removes it.
    expect((await u.del(`/api/user/tokens/${token_id}`)).statusCode).toBe(204);
    expect((await u.get('/api/user/tokens')).json()).toEqual([]);
  });

  it.each([{}, { expires_in_days: null }, { expires_in_days: 0 }])('makes a token that never expires from %o', async (body) => {
    const u = await signedInUser(t());
    const created = await u.post('/api/user/tokens', body);
    expect(created.statusCode).toBe(201);
    expect(created.json().expires).toBeNull();
  });

  it.each([{ expires_in_days: 7 }, { expires_in_days: '30' }, { expires_in_days: -1 }, { expires_in_days: 30.5 }])(
    'refuses %o with a 400 naming the field, creating nothing',
    async (body) => {
      const u = await signedInUser(t());
      const res = await u.post('/api/user/tokens', body);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ error: 'expires_in_days must be one of 30, 90, 365, or empty for never', code: 'token_expiry_invalid', values: '30, 90, 365', field: 'expires_in_days' });
      expect((await u.get('/api/user/tokens')).json()).toEqual([]);
    },
  );

  it('never lets a token make a token that outlives it', async () => {
    const u = await signedInUser(t());
    const parent = (await u.post('/api/user/tokens', { expires_in_days: 30 })).json<{ id: string; expires: string }>();
    const byToken = (payload?: unknown) =>
      t().app.inject({
        method: 'POST',
        url: '/api/user/tokens',
        headers: { authorization: `Bearer ${parent.id}` },
        ...(payload === undefined ? {} : { payload: payload as object }),
      });
    // "Never", no body, or longer than the token itself: the new token ends when the token that made it does.
    for (const body of [{ expires_in_days: 0 }, { expires_in_days: null }, undefined, { expires_in_days: 365 }, { expires_in_days: 30 }]) {
      const child = await byToken(body);
      expect(child.statusCode).toBe(201);
      expect([body, child.json().expires]).toEqual([body, parent.expires]);
      expect((await bearer(child.json().id)).statusCode).toBe(200);
    }
    // A shorter lifetime stays as asked.
    const forever = (await u.post('/api/user/tokens', { expires_in_days: 0 })).json<{ id: string }>();
    const before = Date.now();
    const short = await t().app.inject({
      method: 'POST',
      url: '/api/user/tokens',
      headers: { authorization: `Bearer ${forever.id}` },
      payload: { expires_in_days: 30 },
    });
    const lifetime = Date.parse(short.json().expires) - before;
    expect(lifetime).toBeGreaterThanOrEqual(30 * 86_400_000 - 1000);
    expect(lifetime).toBeLessThan(30 * 86_400_000 + 60_000);
    // A token that never expires makes one that never expires; a session is not capped either.
    const child = await t().app.inject({ method: 'POST', url: '/api/user/tokens', headers: { authorization: `Bearer ${forever.id}` } });
    expect(child.json().expires).toBeNull();
    expect((await u.post('/api/user/tokens', { expires_in_days: 0 })).json().expires).toBeNull();
  });

  it('a token deleted user loses access', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const u = await signedInUser(t());
    const { id: value } = (await u.post('/api/user/tokens')).json();
    expect((await admin.del(`/api/users/${u.id}`)).statusCode).toBe(204);
    expect((await bearer(value)).statusCode).toBe(401);
  });
});
