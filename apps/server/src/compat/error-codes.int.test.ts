import { CSRF_HEADER, ErrorCodes, SESSION_COOKIE } from '@gantry/contracts';
import type { LightMyRequestResponse } from 'fastify';
import { describe, expect, it } from 'vitest';
import { REFUSE_AFTER } from '../modules/auth/login-throttle.js';
import { createProject, engines, signedInUser, uniq, useTestApp } from '../test/harness.js';
import { scriptClient } from './script-client.js';

const known = new Set<string>(Object.values(ErrorCodes));

/** Status and body of a refusal, after checking that it carries a known code. */
function refusal(res: LightMyRequestResponse): [number, Record<string, unknown>] {
  const body = res.json<Record<string, unknown>>();
  expect(known.has(String(body.code)), `${res.statusCode} ${res.body}`).toBe(true);
  return [res.statusCode, body];
}

/**
 * Every error answer carries a stable `code` (contracts' ErrorCodes, worded by the console in
 * its language) and what words it (`field`, `label_key`, `max`...), beside the English `error`
 * API users read, which stays as it was: schema rules, services' refusals, sign-in, unknown
 * routes, Fastify's own refusals.
 */
describe.each(engines)('every error answer carries a stable code ($name)', (engine) => {
  const t = useTestApp(engine);

  it('schema rules: the code of the rule, the field and the label it names', async () => {
    const admin = await signedInUser(t(), { admin: true });
    expect(refusal(await admin.post('/api/projects', { name: '' }))).toEqual([
      400,
      { error: 'Project name is required', code: 'field_required', field: 'name', label_key: 'project_name' },
    ]);
    expect(refusal(await admin.post('/api/projects', { name: 'x'.repeat(256) }))).toEqual([
      400,
      {
        error: 'Project name must be at most 255 characters',
        code: 'too_long',
        field: 'name',
        label_key: 'project_name',
        max: 255,
      },
    ]);
    expect(refusal(await admin.post('/api/projects', { name: 'p', max_parallel_tasks: 'many' }))).toEqual([
      400,
      { error: 'Must be an integer', code: 'must_be_integer', field: 'max_parallel_tasks' },
    ]);
    const p = await createProject(admin);
    expect(refusal(await admin.get(`/api/project/${p}/users?sort=age`))).toEqual([
      400,
      {
        error: 'Sort must be name, username, email or role',
        code: 'must_be_one_of',
        field: 'sort',
        name: 'sort',
        values: 'name, username, email, role',
      },
    ]);
    // zod's own texts (no contracts message) still name the field, and say `invalid_value`.
    const [status, body] = refusal(await admin.post(`/api/project/${p}/views`, { title: 'v', position: 1.5 }));
    expect([status, body.code, body.field]).toEqual([400, 'invalid_value', 'position']);
    expect(body.error).toMatch(/^position: /);
  });

  it("services' refusals: their own code, with what words them", async () => {
    const admin = await signedInUser(t(), { admin: true });
    const p = await createProject(admin);
    const other = await createProject(admin);
    const foreignKey = (await admin.post(`/api/project/${other}/keys`, { name: 'k', type: 'none' })).json<{
      id: number;
    }>().id;
    const repository = { name: 'r', git_url: 'https://example.com/r.git', git_branch: 'main' };
    expect(
      refusal(await admin.post(`/api/project/${p}/repositories`, { ...repository, ssh_key_id: foreignKey })),
    ).toEqual([
      400,
      {
        error: 'Access key not found in this project',
        code: 'not_in_project',
        field: 'ssh_key_id',
        label_key: 'access_key',
      },
    ]);
    expect(refusal(await admin.get(`/api/project/${p}/keys/999999`))).toEqual([
      404,
      { error: 'Key not found', code: 'key_not_found' },
    ]);

    const key = (await admin.post(`/api/project/${p}/keys`, { name: 'k', type: 'none' })).json<{ id: number }>().id;
    expect((await admin.post(`/api/project/${p}/repositories`, { ...repository, ssh_key_id: key })).statusCode).toBe(
      201,
    );
    const [status, body] = refusal(await admin.del(`/api/project/${p}/keys/${key}`));
    expect([status, body.error, body.code]).toEqual([409, "Can't delete the key", 'key_in_use']);
    expect(body.references).toMatchObject({ repositories: [expect.objectContaining({ name: 'r' })] });

    const taken = await admin.post('/api/users', {
      name: 'n',
      username: admin.username,
      email: `${uniq()}@example.com`,
      password: 'pw-123456',
    });
    expect(refusal(taken)).toEqual([409, { error: 'Username is already taken', code: 'username_taken' }]);
  });

  it('membership and permissions: not found and forbidden, each with its code', async () => {
    const owner = await signedInUser(t(), { admin: true });
    const stranger = await signedInUser(t());
    const p = await createProject(owner);
    expect(refusal(await stranger.get(`/api/project/${p}/keys`))).toEqual([
      404,
      { error: 'Project not found', code: 'project_not_found' },
    ]);
    expect(refusal(await stranger.get('/api/users'))).toEqual([
      403,
      { error: 'Only administrators and project owners or managers can list users', code: 'users_list_forbidden' },
    ]);
    expect(refusal(await stranger.get('/api/tasks'))).toEqual([403, { error: 'Forbidden', code: 'forbidden' }]);
    const cross = await t().app.inject({
      method: 'POST',
      url: '/api/projects',
      cookies: { [SESSION_COOKIE]: stranger.cookie },
      headers: { origin: 'https://evil.example' },
      payload: { name: 'x' },
    });
    expect(refusal(cross)).toEqual([403, { error: 'Cross-site request refused', code: 'cross_site' }]);
  });

  it('sign-in: not signed in, a wrong password, then the throttle', async () => {
    const ctx = t();
    expect(refusal(await ctx.app.inject('/api/projects'))).toEqual([
      401,
      { error: 'Not authenticated', code: 'not_authenticated' },
    ]);
    const user = await signedInUser(ctx);
    const login = (password: string) =>
      ctx.app.inject({
        method: 'POST',
        url: '/api/auth/login',
        remoteAddress: '10.77.0.1',
        payload: { auth: user.username, password },
      });
    expect(refusal(await login('wrong'))).toEqual([
      401,
      { error: 'Incorrect login or password', code: 'incorrect_login' },
    ]);
    for (let i = 1; i < REFUSE_AFTER; i++) await login('wrong');
    const locked = await login(user.password);
    expect(refusal(locked)).toEqual([
      429,
      { error: 'Too many failed sign-in attempts, try again later', code: 'too_many_attempts' },
    ]);
    expect(Number(locked.headers['retry-after'])).toBeGreaterThan(0);
  });

  it("unknown routes and Fastify's own refusals", async () => {
    const ctx = t();
    const admin = await signedInUser(ctx);
    expect(refusal(await admin.get('/api/nothing/here'))).toEqual([
      404,
      { error: 'Route GET /api/nothing/here not found', code: 'route_not_found' },
    ]);
    const raw = (payload: string) =>
      ctx.app.inject({
        method: 'POST',
        url: '/api/projects',
        cookies: { [SESSION_COOKIE]: admin.cookie },
        headers: { 'content-type': 'application/json', [CSRF_HEADER]: '1' },
        payload,
      });
    expect(refusal(await raw('{"name": '))).toEqual([
      400,
      { error: 'Request body is not valid JSON', code: 'body_not_json' },
    ]);
    expect(refusal(await raw(JSON.stringify({ name: 'x'.repeat(2 * 1024 * 1024) })))).toEqual([
      413,
      { error: 'Request body is too large', code: 'body_too_large' },
    ]);
  });

  it('API tokens get the same codes as the console', async () => {
    const admin = await signedInUser(t());
    const api = await scriptClient(t(), admin);
    expect(refusal(await api.send('POST', '/api/projects', { name: ' ' }))).toEqual([
      400,
      { error: 'Project name is required', code: 'field_required', field: 'name', label_key: 'project_name' },
    ]);
    expect(refusal(await api.send('GET', '/api/project/999999/templates'))).toEqual([
      404,
      { error: 'Project not found', code: 'project_not_found' },
    ]);
  });
});
