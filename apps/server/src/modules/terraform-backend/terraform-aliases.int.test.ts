import { SESSION_COOKIE } from '@gantry/contracts';
import { describe, expect, it } from 'vitest';
import {
  addMember,
  createProject,
  engines,
  signedInUser,
  useTestApp,
  type Caller,
  type TestContext,
} from '../../test/harness.js';
import { createKey } from '../../test/resources.js';

const PASSWORD = 'alias-s3cret-pw';

/** A state as terraform writes it, with `n` instances of one resource. */
function state(serial: number, n: number, lineage = '7c1a3f4e-0000-4000-8000-000000000001'): string {
  return JSON.stringify({
    version: 4,
    terraform_version: '1.11.4',
    serial,
    lineage,
    outputs: { pw: { value: 'out-canary', type: 'string', sensitive: true } },
    resources: [
      {
        mode: 'managed',
        type: 'terraform_data',
        name: 'web',
        provider: 'provider["terraform.io/builtin/terraform"]',
        instances: Array.from({ length: n }, (_, i) => ({
          index_key: i,
          schema_version: 0,
          attributes: { id: `id-${i}` },
        })),
      },
    ],
  });
}

const lockInfo = (id: string, who = 'alice@laptop') =>
  JSON.stringify({
    ID: id,
    Operation: 'OperationTypeApply',
    Info: '',
    Who: who,
    Version: '1.11.4',
    Created: new Date().toISOString(),
    Path: '',
  });

/** A workspace with a login/password key: answers ids and the `Authorization` header for it. */
async function workspaceWithKey(c: Caller, p: number, login = 'ci-bot') {
  const key = await c.post(`/api/project/${p}/keys`, {
    name: `backend-${login}`,
    type: 'login_password',
    login_password: { login, password: PASSWORD },
  });
  expect(key.statusCode).toBe(201);
  const inv = await c.post(`/api/project/${p}/inventory`, {
    name: 'prod',
    type: 'terraform-workspace',
    inventory: 'prod',
    ssh_key_id: key.json().id,
  });
  expect(inv.statusCode).toBe(201);
  const auth = `Basic ${Buffer.from(`${login}:${PASSWORD}`).toString('base64')}`;
  return { keyId: key.json<{ id: number }>().id, inventoryId: inv.json<{ id: number }>().id, auth };
}

function backend(
  t: TestContext,
  method: string,
  url: string,
  auth: string | undefined,
  body?: string,
  headers: Record<string, string> = {},
) {
  return t.app.inject({
    method: method as 'GET',
    url,
    headers: {
      ...(auth ? { authorization: auth } : {}),
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...headers,
    },
    ...(body !== undefined ? { payload: body } : {}),
  });
}

describe.each(engines)('terraform backend aliases and protocol ($name)', (engine) => {
  const t = useTestApp(engine, { GANTRY_WEB_HOST: 'https://gantry.example.com', GANTRY_MAX_STATE_BYTES: '4096' });

  it('creates, lists, changes, rotates and deletes aliases; owners only; the password is never answered', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const p = await createProject(admin);
    const { keyId, inventoryId } = await workspaceWithKey(admin, p);
    const base = `/api/project/${p}/inventory/${inventoryId}/terraform/aliases`;

    const created = await admin.post(base, { auth_key_id: keyId });
    expect(created.statusCode).toBe(201);
    const alias = created.json<{ id: string; url: string; auth_key_id: number }>();
    expect(alias.id).toMatch(/^[a-z0-9]{32}$/);
    expect(alias).toMatchObject({
      url: `https://gantry.example.com/api/terraform/${alias.id}`,
      auth_key_id: keyId,
      inventory_id: inventoryId,
    });
    const listed = await admin.get(base);
    expect(listed.json()).toEqual([alias]);
    expect(listed.body).not.toContain(PASSWORD);
    expect((await admin.get(`${base}/${alias.id}`)).json()).toEqual(alias);

    // Bad input: 400 with the reason; unknown aliases 404.
    expect((await admin.post(base, {})).json()).toEqual({
      error: 'Auth key is required',
      code: 'field_required',
      label_key: 'auth_key',
      field: 'auth_key_id',
    });
    const none = await createKey(admin, p);
    expect((await admin.post(base, { auth_key_id: none })).json()).toEqual({
      error: 'The auth key must be a login/password key',
      code: 'key_must_be_login_password',
      label_key: 'auth_key',
      field: 'auth_key_id',
    });
    const other = await createProject(admin);
    const foreignKey = await createKey(admin, other, 'login_password');
    expect((await admin.post(base, { auth_key_id: foreignKey })).statusCode).toBe(400);
    expect((await admin.get(`${base}/zzzz`)).statusCode).toBe(404);
    expect((await admin.get(`${base}/NOT-AN-ALIAS`)).statusCode).toBe(400);
    const hosts = await admin.post(`/api/project/${p}/inventory`, {
      name: 'hosts',
      type: 'static',
      inventory: 'localhost',
      ssh_key_id: keyId,
    });
    expect((await admin.get(`/api/project/${p}/inventory/${hosts.json().id}/terraform/aliases`)).json()).toEqual({
      error: 'Only Terraform/OpenTofu workspaces have a state backend',
      code: 'terraform_workspace_required',
    });
    // Another project's workspace is not found through this project.
    expect((await admin.get(`/api/project/${other}/inventory/${inventoryId}/terraform/aliases`)).statusCode).toBe(404);

    const second = await admin.post(`/api/project/${p}/keys`, {
      name: 'k2',
      type: 'login_password',
      login_password: { login: 'bob', password: 'pw2' },
    });
    expect((await admin.put(`${base}/${alias.id}`, { auth_key_id: second.json().id })).statusCode).toBe(204);
    expect((await admin.get(`${base}/${alias.id}`)).json()).toMatchObject({ auth_key_id: second.json().id });

    const rotated = await admin.post(`${base}/${alias.id}/rotate`);
    expect(rotated.statusCode).toBe(200);
    expect(rotated.json().id).not.toBe(alias.id);
    expect((await admin.get(`${base}/${alias.id}`)).statusCode).toBe(404);

    // Reading aliases needs the owner's permission, as changing them does; task runners see the switch only.
    const runner = await signedInUser(t());
    await addMember(t(), p, runner.id, 'task_runner');
    expect((await runner.get(base)).statusCode).toBe(403);
    expect((await runner.post(base, { auth_key_id: keyId })).statusCode).toBe(403);
    expect((await runner.get(`/api/project/${p}/inventory/${inventoryId}/terraform/backend`)).json()).toEqual({
      enabled: false,
    });
    expect(
      (await runner.put(`/api/project/${p}/inventory/${inventoryId}/terraform/backend`, { enabled: true })).statusCode,
    ).toBe(403);
    const outsider = await signedInUser(t());
    expect((await outsider.get(base)).statusCode).toBe(404);

    expect(
      (await admin.put(`/api/project/${p}/inventory/${inventoryId}/terraform/backend`, { enabled: true })).json(),
    ).toEqual({ enabled: true });
    expect(
      (await admin.put(`/api/project/${p}/inventory/${inventoryId}/terraform/backend`, { enabled: 'yes' })).statusCode,
    ).toBe(400);
    expect((await admin.del(`${base}/${rotated.json().id}`)).statusCode).toBe(204);
    expect((await admin.get(base)).json()).toEqual([]);
    const events = (await admin.get(`/api/project/${p}/events/last`)).body;
    expect(events).toContain('Terraform backend alias added to workspace prod');
    expect(events).toContain('rotated');
    expect(events).not.toContain(alias.id);
  });

  it('aliases need the role that downloads raw state: a manager gets 403, an owner succeeds', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const p = await createProject(admin);
    const { keyId, inventoryId, auth } = await workspaceWithKey(admin, p);
    const base = `/api/project/${p}/inventory/${inventoryId}/terraform/aliases`;
    const manager = await signedInUser(t());
    await addMember(t(), p, manager.id, 'manager');
    const owner = await signedInUser(t());
    await addMember(t(), p, owner.id, 'owner');
    const existing = (await admin.post(base, { auth_key_id: keyId })).json<{ id: string }>();

    // An alias answers the raw state (sensitive outputs included), which managers may not download.
    const states = `/api/project/${p}/inventory/${inventoryId}/terraform/states`;
    expect((await manager.get(`${states}/1/download`)).statusCode).toBe(403);
    for (const r of [
      await manager.post(base, { auth_key_id: keyId }),
      await manager.get(base),
      await manager.get(`${base}/${existing.id}`),
      await manager.put(`${base}/${existing.id}`, { auth_key_id: keyId }),
      await manager.post(`${base}/${existing.id}/rotate`),
      await manager.del(`${base}/${existing.id}`),
    ])
      expect([r.statusCode, r.json()]).toEqual([403, { error: 'Forbidden', code: 'forbidden' }]);
    expect(
      (await t().db.db.selectFrom('terraform_alias').select('id').where('project_id', '=', p).execute()).length,
    ).toBe(1);
    // Managers still turn the backend on for their tasks.
    expect(
      (await manager.put(`/api/project/${p}/inventory/${inventoryId}/terraform/backend`, { enabled: true })).statusCode,
    ).toBe(200);

    const created = await owner.post(base, { auth_key_id: keyId });
    expect(created.statusCode).toBe(201);
    const alias = created.json<{ id: string }>();
    expect((await owner.get(base)).json()).toHaveLength(2);
    expect((await backend(t(), 'GET', `/api/terraform/${alias.id}`, auth)).statusCode).toBe(204);
    expect((await owner.del(`${base}/${alias.id}`)).statusCode).toBe(204);
  });

  it("the password that opens an alias is the owners' to change: a manager may rename its key, not replace its secret", async () => {
    const admin = await signedInUser(t(), { admin: true });
    const p = await createProject(admin);
    const { keyId, inventoryId, auth } = await workspaceWithKey(admin, p);
    const other = await createKey(admin, p, 'login_password', 'unused');
    const manager = await signedInUser(t());
    await addMember(t(), p, manager.id, 'manager');
    const owner = await signedInUser(t());
    await addMember(t(), p, owner.id, 'owner');
    const alias = (await admin.post(`/api/project/${p}/inventory/${inventoryId}/terraform/aliases`, { auth_key_id: keyId })).json<{ id: string }>();
    const mine = `Basic ${Buffer.from('mine:known-to-the-manager').toString('base64')}`;
    const replace = { name: 'backend-ci-bot', type: 'login_password', override_secret: true, login_password: { login: 'mine', password: 'known-to-the-manager' } };

    const refused = await manager.put(`/api/project/${p}/keys/${keyId}`, replace);
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toMatchObject({ code: 'key_used_by_alias' });
    expect(JSON.stringify(refused.json())).not.toContain('known-to-the-manager');
    // Nothing changed: the old password still opens the alias, the manager's does not.
    expect((await backend(t(), 'GET', `/api/terraform/${alias.id}`, auth)).statusCode).toBe(204);
    expect((await backend(t(), 'GET', `/api/terraform/${alias.id}`, mine)).statusCode).toBe(401);
    // Changing its type writes new material too.
    expect((await manager.put(`/api/project/${p}/keys/${keyId}`, { name: 'backend-ci-bot', type: 'none' })).statusCode).toBe(403);
    // A rename keeps the secret; a key no alias uses stays the managers' to change.
    expect((await manager.put(`/api/project/${p}/keys/${keyId}`, { name: 'renamed', type: 'login_password' })).statusCode).toBe(204);
    expect((await manager.put(`/api/project/${p}/keys/${other}`, { ...replace, name: 'unused' })).statusCode).toBe(204);

    expect((await owner.put(`/api/project/${p}/keys/${keyId}`, replace)).statusCode).toBe(204);
    expect((await backend(t(), 'GET', `/api/terraform/${alias.id}`, mine)).statusCode).toBe(204);
  });

  it('speaks the http backend: one answer for unknown aliases and wrong credentials, locks with 423, ?ID checked, purge by managers', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const p = await createProject(admin);
    const { keyId, inventoryId, auth } = await workspaceWithKey(admin, p);
    const alias = (
      await admin.post(`/api/project/${p}/inventory/${inventoryId}/terraform/aliases`, { auth_key_id: keyId })
    ).json<{ id: string }>();
    const url = `/api/terraform/${alias.id}`;

    expect((await backend(t(), 'GET', url, auth)).statusCode).toBe(204);
    const wrong = await backend(t(), 'GET', url, `Basic ${Buffer.from(`ci-bot:nope`).toString('base64')}`);
    const wrongLogin = await backend(t(), 'GET', url, `Basic ${Buffer.from(`eve:${PASSWORD}`).toString('base64')}`);
    const unknown = await backend(t(), 'GET', '/api/terraform/abcdefghijklmnopqrstuvwxyz012345', auth);
    const malformed = await backend(t(), 'GET', '/api/terraform/..%2f..', auth);
    const bare = await backend(t(), 'GET', url, undefined);
    for (const r of [wrong, wrongLogin, unknown, malformed, bare]) {
      expect(r.statusCode).toBe(401);
      expect(r.json()).toEqual({ error: 'Invalid alias or credentials', code: 'backend_denied' });
      expect(r.headers['www-authenticate']).toBe('Basic realm="Gantry Terraform state"');
    }
    // A session cookie or API token does not open the backend either.
    expect((await t().app.inject({ method: 'GET', url, cookies: { [SESSION_COOKIE]: admin.cookie } })).statusCode).toBe(
      401,
    );

    // Lock, then a second holder gets 423 with the first one's lock information.
    expect((await backend(t(), 'LOCK', url, auth, lockInfo('lock-a'))).statusCode).toBe(200);
    const taken = await backend(t(), 'LOCK', url, auth, lockInfo('lock-b', 'bob@ci'));
    expect(taken.statusCode).toBe(423);
    expect(taken.json()).toMatchObject({ ID: 'lock-a', Who: 'alice@laptop' });
    expect((await backend(t(), 'POST', `${url}/lock`, auth, lockInfo('lock-c'))).statusCode).toBe(423);

    // While locked, a state goes in only with the holder's ID.
    expect((await backend(t(), 'POST', url, auth, state(1, 1))).statusCode).toBe(423);
    expect((await backend(t(), 'POST', `${url}?ID=lock-b`, auth, state(1, 1))).statusCode).toBe(423);
    expect((await backend(t(), 'POST', `${url}?ID=lock-a`, auth, state(1, 1))).statusCode).toBe(200);
    // The same state again adds no version.
    expect((await backend(t(), 'POST', `${url}?ID=lock-a`, auth, state(1, 1))).statusCode).toBe(200);
    expect((await backend(t(), 'UNLOCK', url, auth, lockInfo('lock-b'))).statusCode).toBe(423);
    expect((await backend(t(), 'UNLOCK', url, auth, lockInfo('lock-a'))).statusCode).toBe(200);

    // The fallbacks for clients without custom methods; force-unlock sends no body.
    expect((await backend(t(), 'POST', `${url}/lock`, auth, lockInfo('lock-d'))).statusCode).toBe(200);
    expect((await backend(t(), 'DELETE', `${url}/lock`, auth)).statusCode).toBe(200);
    expect((await backend(t(), 'POST', url, auth, state(2, 3))).statusCode).toBe(200);

    const read = await backend(t(), 'GET', url, auth);
    expect(read.statusCode).toBe(200);
    expect(JSON.parse(read.body)).toMatchObject({ serial: 2 });
    expect(read.body).toContain('out-canary');

    // Bad bodies are 400, too large ones 413; neither changes the state.
    expect((await backend(t(), 'POST', url, auth, 'not json')).json()).toEqual({
      error: 'The body is not a Terraform state',
      code: 'state_body_invalid',
    });
    expect((await backend(t(), 'POST', url, auth, '{"serial": "x"}')).statusCode).toBe(400);
    expect((await backend(t(), 'LOCK', url, auth, '{"Who": "no id"}')).json()).toEqual({
      error: 'The body is not lock information',
      code: 'lock_body_invalid',
    });
    expect((await backend(t(), 'POST', url, auth, state(3, 200))).statusCode).toBe(413);
    expect((await backend(t(), 'DELETE', url, auth)).statusCode).toBe(405);

    // Versions record serial, lineage, resource count and the writing alias (only a hint of it).
    const states = `/api/project/${p}/inventory/${inventoryId}/terraform/states`;
    const list = (await admin.get(states)).json<Array<Record<string, unknown>>>();
    expect(list).toHaveLength(2);
    expect(list[0]).toMatchObject({
      serial: 2,
      resource_count: 3,
      lineage: '7c1a3f4e-0000-4000-8000-000000000001',
      task_id: null,
      status: '',
    });
    expect(list[0]!.alias_hint).toBe(`${alias.id.slice(0, 6)}…`);
    expect(JSON.stringify(list)).not.toContain(alias.id);
    const one = await admin.get(`${states}/${list[0]!.id as number}`);
    expect(one.body).not.toContain('out-canary');
    const rows = await t()
      .db.db.selectFrom('terraform_state')
      .select('state')
      .where('inventory_id', '=', inventoryId)
      .execute();
    expect(rows.map((r) => r.state).join()).not.toContain('out-canary');

    // Download: owners only; purge: owners and managers, not task runners.
    const manager = await signedInUser(t());
    await addMember(t(), p, manager.id, 'manager');
    const runner = await signedInUser(t());
    await addMember(t(), p, runner.id, 'task_runner');
    expect((await manager.get(`${states}/${list[0]!.id as number}/download`)).statusCode).toBe(403);
    const file = await admin.get(`${states}/${list[0]!.id as number}/download`);
    expect(file.statusCode).toBe(200);
    expect(file.headers['content-disposition']).toMatch(/attachment; filename="prod-\d+\.tfstate"/);
    expect(file.body).toContain('out-canary');
    expect((await runner.del(states)).statusCode).toBe(403);
    expect((await manager.del(`${states}/${list[1]!.id as number}`)).statusCode).toBe(204);
    expect((await manager.del(`${states}/${list[1]!.id as number}`)).statusCode).toBe(404);
    expect((await manager.del(states)).statusCode).toBe(204);
    expect((await admin.get(states)).json()).toEqual([]);
    expect((await backend(t(), 'GET', url, auth)).statusCode).toBe(204);
  });

  it('a deleted key leaves its aliases locked; deleting the project takes aliases, locks and versions with it', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const p = await createProject(admin);
    const { inventoryId } = await workspaceWithKey(admin, p);
    const key = await admin.post(`/api/project/${p}/keys`, {
      name: 'laptop',
      type: 'login_password',
      login_password: { login: 'dev', password: 'dev-pw' },
    });
    const base = `/api/project/${p}/inventory/${inventoryId}/terraform/aliases`;
    const alias = (await admin.post(base, { auth_key_id: key.json().id })).json<{ id: string }>();
    const auth = `Basic ${Buffer.from('dev:dev-pw').toString('base64')}`;
    const url = `/api/terraform/${alias.id}`;
    expect((await backend(t(), 'LOCK', url, auth, lockInfo('held'))).statusCode).toBe(200);
    expect((await backend(t(), 'POST', `${url}?ID=held`, auth, state(1, 1))).statusCode).toBe(200);
    expect((await admin.del(`/api/project/${p}/keys/${key.json().id}`)).statusCode).toBe(204);
    expect((await admin.get(`${base}/${alias.id}`)).json()).toMatchObject({ auth_key_id: null });
    expect((await backend(t(), 'GET', url, auth)).statusCode).toBe(401);

    expect((await admin.del(`/api/project/${p}`)).statusCode).toBe(204);
    for (const table of ['terraform_alias', 'terraform_lock', 'terraform_state'] as const) {
      const rows = await t().db.db.selectFrom(table).select('project_id').where('project_id', '=', p).execute();
      expect(rows, table).toEqual([]);
    }
  });

  it("a flood of bad requests from one address leaves another alias's right credentials working", async () => {
    const admin = await signedInUser(t(), { admin: true });
    const p = await createProject(admin);
    const { keyId, inventoryId, auth } = await workspaceWithKey(admin, p);
    const base = `/api/project/${p}/inventory/${inventoryId}/terraform/aliases`;
    const x = (await admin.post(base, { auth_key_id: keyId })).json<{ id: string }>();
    const y = (await admin.post(base, { auth_key_id: keyId })).json<{ id: string }>();
    // Every local task calls from the same address.
    const from = (url: string, authorization: string) =>
      t().app.inject({ method: 'GET', url, remoteAddress: '10.80.0.1', headers: { authorization } });
    const bad = `Basic ${Buffer.from('ci-bot:guess').toString('base64')}`;
    // Past the address's limit: wrong credentials for alias X, and aliases that do not exist.
    const flood = await Promise.all([
      ...Array.from({ length: 60 }, () => from(`/api/terraform/${x.id}`, bad)),
      ...Array.from({ length: 110 }, (_, i) => from(`/api/terraform/unknownalias${String(i).padStart(8, '0')}`, bad)),
    ]);
    const xCodes = flood.slice(0, 60).map((r) => r.statusCode);
    // Alias X: no more wrong credentials checked than its own limit, the rest refused.
    expect(xCodes.filter((c) => c === 401)).toHaveLength(10);
    expect(xCodes.filter((c) => c === 429)).toHaveLength(50);
    expect(flood.slice(60).filter((r) => r.statusCode === 429).length).toBeGreaterThan(0);
    // Alias Y, from the same address, with its right credentials: let in.
    expect((await from(`/api/terraform/${y.id}`, auth)).statusCode).toBe(204);
    // Alias X stays locked, the right credentials too, like an account after too many failures.
    const locked = await from(`/api/terraform/${x.id}`, auth);
    expect(locked.statusCode).toBe(429);
    expect(Number(locked.headers['retry-after'])).toBeGreaterThan(0);
  });

  it('refuses wrong credentials for one alias past its limit while another alias works', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const p = await createProject(admin);
    const { keyId, inventoryId, auth } = await workspaceWithKey(admin, p);
    const base = `/api/project/${p}/inventory/${inventoryId}/terraform/aliases`;
    const x = (await admin.post(base, { auth_key_id: keyId })).json<{ id: string }>();
    const y = (await admin.post(base, { auth_key_id: keyId })).json<{ id: string }>();
    const bad = `Basic ${Buffer.from('ci-bot:guess').toString('base64')}`;
    for (let i = 0; i < 10; i++)
      expect((await backend(t(), 'GET', `/api/terraform/${x.id}`, bad)).statusCode).toBe(401);
    expect((await backend(t(), 'GET', `/api/terraform/${x.id}`, bad)).statusCode).toBe(429);
    expect((await backend(t(), 'GET', `/api/terraform/${y.id}`, auth)).statusCode).toBe(204);
    expect((await backend(t(), 'GET', `/api/terraform/${y.id}`, bad)).statusCode).toBe(401);
  });

  it('slows, then refuses, an address that keeps failing', async () => {
    const before = t().sleeps.length;
    for (let i = 0; i < 31; i++)
      await backend(t(), 'GET', '/api/terraform/abcdefghijklmnopqrstuvwxyz000000', undefined, undefined, {
        'x-forwarded-for': '203.0.113.9',
      });
    // Counted per address (request.ip): the test app trusts no proxy, so all of these are one.
    expect(t().sleeps.length).toBeGreaterThan(before);
  });
});
