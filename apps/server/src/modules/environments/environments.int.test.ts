import { describe, expect, it } from 'vitest';
import { createProject, engines, signedInUser, useTestApp } from '../../test/harness.js';

describe.each(engines)('variable groups ($name)', (engine) => {
  const t = useTestApp(engine);

  it('stores extra variables and environment, and applies secret changes on save', async () => {
    const ctx = t();
    const admin = await signedInUser(ctx, { admin: true });
    const p = await createProject(admin);
    const created = await admin.post(`/api/project/${p}/environment`, {
      name: 'prod',
      json: '{"region": "eu", "nested": {"a": 1}}',
      env: '{"LANG": "C"}',
      secrets: [
        { name: 'API_TOKEN', secret: 'one', type: 'env' },
        { name: 'db_password', secret: 'two', type: 'var' },
      ],
    });
    expect(created.statusCode).toBe(201);
    const env = created.json();
    expect(env).toMatchObject({ name: 'prod', json: '{"region": "eu", "nested": {"a": 1}}', env: '{"LANG": "C"}' });
    expect(env.secrets.map((s: { name: string; type: string }) => [s.name, s.type])).toEqual([['API_TOKEN', 'env'], ['db_password', 'var']]);
    expect(JSON.stringify(env.secrets)).not.toMatch(/"one"|"two"/);
    const [token, dbpw] = env.secrets;

    const put = await admin.put(`/api/project/${p}/environment/${env.id}`, {
      name: 'prod',
      json: '',
      env: '{}',
      secrets: [
        { id: token.id, name: 'API_TOKEN_2', secret: 'uno', type: 'env', operation: 'update' },
        { id: dbpw.id, name: 'db_password', secret: '', type: 'var', operation: 'delete' },
        { name: 'NEW', secret: 'three', type: 'env', operation: 'create' },
      ],
    });
    expect(put.statusCode).toBe(204);
    const after = (await admin.get(`/api/project/${p}/environment/${env.id}`)).json();
    expect(after.json).toBe('{}');
    expect(after.secrets.map((s: { name: string }) => s.name)).toEqual(['API_TOKEN_2', 'NEW']);
    const values = await ctx.app.services.environments.secretValues(p, env.id);
    expect(values.map((v) => [v.name, v.value]).sort()).toEqual([['API_TOKEN_2', 'uno'], ['NEW', 'three']]);

    // An update without a new value keeps the stored one.
    await admin.put(`/api/project/${p}/environment/${env.id}`, {
      name: 'prod',
      secrets: [{ id: after.secrets[0].id, name: 'API_TOKEN_3', secret: '', type: 'var', operation: 'update' }],
    });
    const kept = await ctx.app.services.environments.secretValues(p, env.id);
    expect(kept.find((v) => v.name === 'API_TOKEN_3')).toMatchObject({ value: 'uno', type: 'var' });
  });

  it.each([
    [{ name: '' }, 'Name is required'],
    [{ json: '{bad' }, 'Extra variables must be valid JSON'],
    [{ json: '[1,2]' }, 'Extra variables must be valid JSON'],
    [{ env: 'nope' }, 'Environment variables must be valid JSON'],
    [{ secrets: [{ name: '', secret: 'x', type: 'env' }] }, 'Secret name is required'],
    [{ secrets: [{ name: 'A', secret: 'x', type: 'file' }] }, 'Type is required'],
  ])('rejects %o with "%s"', async (over, message) => {
    const admin = await signedInUser(t(), { admin: true });
    const p = await createProject(admin);
    const res = await admin.post(`/api/project/${p}/environment`, { name: 'e', json: '{}', env: '{}', ...over });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: message, code: expect.any(String), field: expect.any(String) });
    expect((await admin.get(`/api/project/${p}/environment`)).json()).toEqual([]);
  });

  it("cannot touch another variable group's secret through its id", async () => {
    const admin = await signedInUser(t(), { admin: true });
    const p = await createProject(admin);
    const a = (await admin.post(`/api/project/${p}/environment`, { name: 'a', secrets: [{ name: 'S', secret: 'x', type: 'env' }] })).json();
    const b = (await admin.post(`/api/project/${p}/environment`, { name: 'b' })).json();
    const res = await admin.put(`/api/project/${p}/environment/${b.id}`, { name: 'b', secrets: [{ id: a.secrets[0].id, name: 'S', secret: 'hijack', type: 'env', operation: 'update' }] });
    expect(res.statusCode).toBe(400);
    const del = await admin.put(`/api/project/${p}/environment/${b.id}`, { name: 'b', secrets: [{ id: a.secrets[0].id, name: 'S', type: 'env', operation: 'delete' }] });
    expect(del.statusCode).toBe(204);
    expect((await admin.get(`/api/project/${p}/environment/${a.id}`)).json().secrets).toHaveLength(1);
  });
});
