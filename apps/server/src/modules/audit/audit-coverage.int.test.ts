import { describe, expect, it, vi } from 'vitest';
import { Secret, TOTP } from 'otpauth';
import { CSRF_HEADER, SESSION_COOKIE, type AuditEntry, type ProjectBackup } from '@gantry/contracts';
import { auditCommand } from '../../cli/audit-command.js';
import { gitRepo } from '../../test/git-fixture.js';
import { fullProject, SECRETS } from '../../test/full-project.js';
import {
  callerFor,
  createProject,
  engines,
  signedInUser,
  uniq,
  useTestApp,
  type Caller,
} from '../../test/harness.js';
import { oidcSignIn, useOidcProvider, type FakeOidcProvider } from '../../test/oidc-provider.js';
import { runTask, setupTemplate, waitForTask } from '../../test/tasks.js';
import { waitFor } from '../../test/wait.js';

type Entries = AuditEntry[];

const PASSWORD = 'audit-alias-pw-Q7';
const CANARY = 'state-canary-Vb31';

/** A state as terraform writes it, with a sensitive output whose value must never reach the trail. */
function tfState(serial: number): string {
  return JSON.stringify({
    version: 4,
    terraform_version: '1.11.4',
    serial,
    lineage: '7c1a3f4e-0000-4000-8000-0000000000aa',
    outputs: { pw: { value: CANARY, type: 'string', sensitive: true } },
    resources: [],
  });
}

const lockBody = (id: string) =>
  JSON.stringify({
    ID: id,
    Operation: 'OperationTypeApply',
    Info: '',
    Who: 'alice@laptop',
    Version: '1.11.4',
    Created: new Date().toISOString(),
    Path: '',
  });

const MAIN_TF = `
resource "terraform_data" "example" {
  input = "visible-input"
}
output "pw" {
  value     = "${CANARY}"
  sensitive = true
}
`;

/** One provider with a flat `groups` claim, for the group mappings applied at sign-in. */
const providersEnv = (idp: FakeOidcProvider) =>
  JSON.stringify({
    corp: {
      provider_url: idp.issuer,
      client_id: idp.clientId,
      client_secret: idp.clientSecret,
      display_name: 'Corp',
      groups_claim: 'groups',
    },
  });


/** The current code of a TOTP secret. */
const totpCode = (secret: string) => new TOTP({ secret: Secret.fromBase32(secret) }).generate({ timestamp: Date.now() });

describe.each(engines)('audit trail coverage ($name)', (engine) => {
  const provider = useOidcProvider();
  const t = useTestApp(engine, {
    GANTRY_TOTP_ENABLED: 'true',
    GANTRY_TOTP_ALLOW_RECOVERY: 'true',
    get GANTRY_OIDC_PROVIDERS() {
      return providersEnv(provider());
    },
  });
  const verify = () => t().app.services.audit.verify();
  const entries = async (c: Caller, query: string): Promise<Entries> => {
    const res = await c.get(`/api/audit?limit=500&${query}`);
    expect(res.statusCode, res.body).toBe(200);
    return res.json<Entries>();
  };

  async function workspace(c: Caller, p: number, keyId: number, name: string): Promise<number> {
    const res = await c.post(`/api/project/${p}/inventory`, {
      name,
      type: 'terraform-workspace',
      inventory: name,
      ssh_key_id: keyId,
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json<{ id: number }>().id;
  }

  it("records a template's workspace list and default, and view positions", async () => {
    const admin = await signedInUser(t(), { admin: true });
    const p = await createProject(admin);
    const s = await setupTemplate(admin, p, gitRepo({ 'main.tf': MAIN_TF }), { app: 'terraform', playbook: '' });
    const ws1 = await workspace(admin, p, s.keyId, 'one');
    const ws2 = await workspace(admin, p, s.keyId, 'two');
    const base = `/api/project/${p}/templates/${s.templateId}/inventory`;
    expect((await admin.post(`${base}/${ws1}/attach`)).statusCode).toBe(204);
    expect((await admin.post(`${base}/${ws2}/set_default`)).statusCode).toBe(204);
    // Again: already the default, nothing changes and nothing is recorded.
    expect((await admin.post(`${base}/${ws2}/set_default`)).statusCode).toBe(204);
    expect((await admin.post(`${base}/${ws1}/detach`)).statusCode).toBe(204);
    const ofTemplate = (await entries(admin, `project_id=${p}&object_type=template&action=update`)).filter(
      (e) => e.object_id === s.templateId,
    );
    expect(ofTemplate.map((e) => [e.before, e.after])).toEqual([
      [{ inventory_ids: [ws1, ws2] }, { inventory_ids: [ws2] }],
      [{ inventory_id: null }, { inventory_id: ws2 }],
      [{ inventory_ids: [ws1] }, { inventory_ids: [ws1, ws2] }],
      [{ inventory_ids: [] }, { inventory_ids: [ws1] }],
    ]);
    expect(ofTemplate[0]).toMatchObject({ actor: admin.username, auth_kind: 'session', project_id: p });

    const v1 = (await admin.post(`/api/project/${p}/views`, { title: 'Ops', position: 1 })).json<{ id: number }>().id;
    const v2 = (await admin.post(`/api/project/${p}/views`, { title: 'Deploys', position: 2 })).json<{ id: number }>()
      .id;
    // Another project's view and an unknown id are ignored; an unchanged position is no entry.
    const other = await createProject(admin);
    const foreign = (await admin.post(`/api/project/${other}/views`, { title: 'X', position: 7 })).json<{
      id: number;
    }>().id;
    const moved = await admin.post(`/api/project/${p}/views/positions`, {
      [v1]: 2,
      [v2]: 2,
      [foreign]: 0,
      999999: 3,
    });
    expect(moved.statusCode).toBe(204);
    const views = await entries(admin, `project_id=${p}&object_type=view&action=update`);
    expect(views.map((e) => [e.object_id, e.before, e.after])).toEqual([[v1, { position: 1 }, { position: 2 }]]);
    expect(await entries(admin, `project_id=${other}&object_type=view&action=update`)).toEqual([]);
    expect((await admin.get(`/api/project/${other}/views/${foreign}`)).json()).toMatchObject({ position: 7 });
    expect((await verify()).ok).toBe(true);
  });

  it('records integration aliases without their text', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const p = await createProject(admin);
    const s = await setupTemplate(admin, p, '/srv/audit-repo', { playbook: 'run.sh' });
    const integration = (
      await admin.post(`/api/project/${p}/integrations`, { name: 'hook', template_id: s.templateId })
    ).json<{ id: number }>().id;
    const own = await admin.post(`/api/project/${p}/integrations/${integration}/aliases`);
    const shared = await admin.post(`/api/project/${p}/integrations/aliases`);
    expect([own.statusCode, shared.statusCode]).toEqual([201, 201]);
    const ownAlias = own.json<{ id: number; alias: string }>();
    const sharedAlias = shared.json<{ id: number; alias: string }>();
    expect((await admin.del(`/api/project/${p}/integrations/${integration}/aliases/${ownAlias.id}`)).statusCode).toBe(
      204,
    );
    expect((await admin.del(`/api/project/${p}/integrations/aliases/${sharedAlias.id}`)).statusCode).toBe(204);

    const res = await admin.get(`/api/audit?project_id=${p}&object_type=integration_alias`);
    for (const a of [ownAlias.alias, sharedAlias.alias]) expect(res.body).not.toContain(a);
    expect(res.json<Entries>().map((e) => [e.action, e.object_id, e.before, e.after])).toEqual([
      ['delete', sharedAlias.id, { id: sharedAlias.id, integration_id: null }, null],
      ['delete', ownAlias.id, { id: ownAlias.id, integration_id: integration }, null],
      ['create', sharedAlias.id, null, { id: sharedAlias.id, integration_id: null, alias: 'changed' }],
      ['create', ownAlias.id, null, { id: ownAlias.id, integration_id: integration, alias: 'changed' }],
    ]);
    expect((await verify()).ok).toBe(true);
  });

  it('records Terraform aliases, the backend switch, locks, versions written through an alias, and deletions', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const p = await createProject(admin);
    const key = await admin.post(`/api/project/${p}/keys`, {
      name: 'backend',
      type: 'login_password',
      login_password: { login: 'ci-bot', password: PASSWORD },
    });
    const keyId = key.json<{ id: number }>().id;
    const ws = await workspace(admin, p, keyId, 'prod');
    const aliases = `/api/project/${p}/inventory/${ws}/terraform/aliases`;
    const created = (await admin.post(aliases, { auth_key_id: keyId })).json<{ id: string }>();
    const second = await admin.post(`/api/project/${p}/keys`, {
      name: 'k2',
      type: 'login_password',
      login_password: { login: 'bob', password: 'pw2-secret' },
    });
    const keyId2 = second.json<{ id: number }>().id;
    expect((await admin.put(`${aliases}/${created.id}`, { auth_key_id: keyId2 })).statusCode).toBe(204);
    const rotated = (await admin.post(`${aliases}/${created.id}/rotate`)).json<{ id: string }>();
    expect((await admin.put(`/api/project/${p}/inventory/${ws}/terraform/backend`, { enabled: true })).statusCode).toBe(
      200,
    );

    // Terraform through the alias: lock, write a version under the lock, unlock; then a force-unlock.
    const auth = `Basic ${Buffer.from(`bob:pw2-secret`).toString('base64')}`;
    const backend = (method: string, url: string, body?: string) =>
      t().app.inject({
        method: method as 'GET',
        url,
        headers: { authorization: auth, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { payload: body }),
      });
    const addr = `/api/terraform/${rotated.id}`;
    expect((await backend('LOCK', addr, lockBody('lock-1'))).statusCode).toBe(200);
    expect((await backend('POST', `${addr}?ID=lock-1`, tfState(3))).statusCode).toBe(200);
    expect((await backend('UNLOCK', addr, lockBody('lock-1'))).statusCode).toBe(200);
    expect((await backend('LOCK', addr, lockBody('lock-2'))).statusCode).toBe(200);
    expect((await backend('UNLOCK', addr, '')).statusCode).toBe(200);
    // A refused lock or write is no entry.
    expect((await backend('POST', `${addr}?ID=nope`, 'not a state')).statusCode).toBe(400);
    expect((await backend('POST', addr, tfState(4))).statusCode).toBe(200);

    const states = `/api/project/${p}/inventory/${ws}/terraform/states`;
    const versions = (await admin.get(states)).json<Array<{ id: number }>>();
    expect(versions).toHaveLength(2);
    expect((await admin.del(`${states}/${versions[1]!.id}`)).statusCode).toBe(204);
    expect((await admin.del(states)).statusCode).toBe(204);
    expect((await admin.del(`${aliases}/${rotated.id}`)).statusCode).toBe(204);

    const res = await admin.get(`/api/audit?limit=500&project_id=${p}`);
    for (const secret of [created.id, rotated.id, CANARY, PASSWORD, 'pw2-secret'])
      expect(res.body).not.toContain(secret);
    const all = res.json<Entries>().reverse();
    const hint = (id: string) => `${id.slice(0, 6)}…`;
    const pick = (types: string[]) =>
      all
        .filter((e) => types.includes(e.object_type))
        .map((e) => ({ action: e.action, type: e.object_type, id: e.object_id, before: e.before, after: e.after }));
    expect(pick(['terraform_alias', 'terraform_backend'])).toEqual([
      {
        action: 'create',
        type: 'terraform_alias',
        id: hint(created.id),
        before: null,
        after: { alias: hint(created.id), inventory_id: ws, auth_key_id: keyId },
      },
      {
        action: 'update',
        type: 'terraform_alias',
        id: hint(created.id),
        before: { auth_key_id: keyId },
        after: { auth_key_id: keyId2 },
      },
      {
        action: 'update',
        type: 'terraform_alias',
        id: hint(created.id),
        before: { alias: hint(created.id) },
        after: { alias: hint(rotated.id) },
      },
      { action: 'update', type: 'terraform_backend', id: ws, before: { enabled: false }, after: { enabled: true } },
      {
        action: 'delete',
        type: 'terraform_alias',
        id: hint(rotated.id),
        before: { alias: hint(rotated.id), inventory_id: ws, auth_key_id: keyId2 },
        after: null,
      },
    ]);
    const stateEntries = all.filter((e) => e.object_type === 'terraform_state');
    expect(stateEntries.map((e) => e.action)).toEqual([
      'lock',
      'create',
      'unlock',
      'lock',
      'unlock',
      'create',
      'delete',
      'delete',
    ]);
    expect(stateEntries.every((e) => e.object_id === ws && e.project_id === p)).toBe(true);
    // Reached with the alias's Basic credentials: no user, a webhook-like caller.
    expect(stateEntries[0]).toMatchObject({
      actor: null,
      auth_kind: 'webhook',
      after: { lock_id: 'lock-1', who: 'alice@laptop', operation: 'OperationTypeApply', alias: hint(rotated.id) },
    });
    expect(stateEntries[1]!.after).toEqual({
      version_id: versions[1]!.id,
      task_id: null,
      serial: 3,
      lineage: '7c1a3f4e-0000-4000-8000-0000000000aa',
      resource_count: 0,
      alias: hint(rotated.id),
    });
    expect(stateEntries[2]).toMatchObject({ before: { lock_id: 'lock-1' }, after: { force: false } });
    expect(stateEntries[4]).toMatchObject({ before: { lock_id: 'lock-2' }, after: { force: true } });
    expect(stateEntries[6]).toMatchObject({
      actor: admin.username,
      before: { version_id: versions[1]!.id, serial: 3 },
    });
    expect(stateEntries[7]).toMatchObject({ actor: admin.username, before: { versions: 1 } });
    expect((await verify()).ok).toBe(true);
  });

  it("records the state a task's run leaves, as Gantry, without its content", async () => {
    const admin = await signedInUser(t(), { admin: true });
    const p = await createProject(admin);
    const s = await setupTemplate(admin, p, gitRepo({ 'main.tf': MAIN_TF }), {
      app: 'terraform',
      playbook: '',
      task_params: { auto_approve: true },
    });
    const ws = await workspace(admin, p, s.keyId, 'staging');
    await admin.post(`/api/project/${p}/templates/${s.templateId}/inventory/${ws}/set_default`);
    const id = await runTask(admin, p, { template_id: s.templateId });
    expect((await waitForTask(admin, p, id)).status).toBe('success');
    // The version is stored (and recorded) just after the task's final status.
    const url = `/api/audit?project_id=${p}&object_type=terraform_state`;
    const res = await waitFor('the state version entry', async () => {
      const r = await admin.get(url);
      return r.json<Entries>().length > 0 && r;
    });
    expect(res.body).not.toContain(CANARY);
    expect(res.body).not.toContain('visible-input');
    const [version] = (await admin.get(`/api/project/${p}/inventory/${ws}/terraform/states`)).json<
      Array<{ id: number }>
    >();
    expect(res.json<Entries>()).toEqual([
      expect.objectContaining({
        action: 'create',
        object_id: ws,
        actor: null,
        auth_kind: 'system',
        request_id: null,
        after: expect.objectContaining({
          version_id: version!.id,
          task_id: id,
          serial: expect.any(Number),
          alias: null,
        }),
      }),
    ]);
    expect((await verify()).ok).toBe(true);
  });

  it('records a restore as one entry naming the project and its counts, and a cleared project cache', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const src = await fullProject(admin);
    const backup = (await admin.get(`/api/project/${src.p}/backup?format=gantry`)).json<ProjectBackup>();
    const restored = await admin.post('/api/projects/restore', { ...backup, meta: { ...backup.meta, name: 'Copy' } });
    expect(restored.statusCode, restored.body).toBe(201);
    const id = restored.json<{ id: number }>().id;
    const res = await admin.get(`/api/audit?project_id=${id}`);
    for (const secret of Object.values(SECRETS)) expect(res.body).not.toContain(secret);
    // One entry for the whole restore: the objects it created are not entries of their own.
    expect(res.json<Entries>()).toEqual([
      expect.objectContaining({
        action: 'restore',
        object_type: 'project',
        object_id: id,
        actor: admin.username,
        before: null,
        after: {
          name: 'Copy',
          keys: backup.keys.length,
          repositories: backup.repositories.length,
          inventories: backup.inventories.length,
          environments: backup.environments.length,
          views: backup.views.length,
          templates: backup.templates.length,
          schedules: backup.schedules.length,
          integrations: backup.integrations.length,
          workflows: backup.workflows.length,
          left_empty: restored.json<{ emptySecrets: unknown[] }>().emptySecrets.length,
          unmapped: 0,
        },
      }),
    ]);

    expect((await admin.del(`/api/project/${id}/cache`)).statusCode).toBe(204);
    expect((await entries(admin, `project_id=${id}&object_type=project_cache`))[0]).toMatchObject({
      action: 'delete',
      object_id: id,
      before: { task_folders: 0, checkouts: 0 },
      actor: admin.username,
    });
    expect((await verify()).ok).toBe(true);
  });

  it('records a sign-out as the user whose session ends; an unknown session is no entry', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const user = await signedInUser(t());
    const out = await t().app.inject({
      method: 'POST',
      url: '/api/auth/logout',
      cookies: { [SESSION_COOKIE]: user.cookie },
      headers: { [CSRF_HEADER]: '1', 'user-agent': 'audit-coverage/1.0' },
    });
    expect(out.statusCode).toBe(204);
    expect((await user.get('/api/user')).statusCode).toBe(401);
    // The same cookie again: the session is gone, nobody signs out.
    const again = await t().app.inject({
      method: 'POST',
      url: '/api/auth/logout',
      cookies: { [SESSION_COOKIE]: user.cookie },
      headers: { [CSRF_HEADER]: '1' },
    });
    expect(again.statusCode).toBe(204);
    const mine = await entries(admin, `action=sign_out&actor=${user.username}`);
    expect(mine).toEqual([
      expect.objectContaining({
        object_type: 'user',
        object_id: user.id,
        actor_id: user.id,
        auth_kind: 'session',
        user_agent: 'audit-coverage/1.0',
        before: null,
        after: null,
      }),
    ]);
    expect((await verify()).ok).toBe(true);
  });

  it('records two-factor set-up, confirmation and removal (own, by an admin, by the recovery code), never its secrets', async () => {
    const ctx = t();
    const admin = await signedInUser(ctx, { admin: true });
    const u = await signedInUser(ctx);
    const url = `/api/users/${u.id}/2fas/totp`;
    // Set up twice: the first, never confirmed, is replaced.
    const first = (await u.post(url, { password: u.password })).json<{ secret: string; recovery_code: string }>();
    const own = (await u.post(url, { password: u.password })).json<{
      id: number;
      secret: string;
      recovery_code: string;
    }>();
    // The current step's code: the server takes it in this step and the next (its window of one),
    // so a step ending while the request is on its way does not matter. (An older step's code was
    // refused whenever a step ended meanwhile: a CI failure on MySQL.)
    expect((await u.post(`${url}/${own.id}/confirm`, { code: totpCode(own.secret) })).statusCode).toBe(204);
    const disabled = await ctx.app.inject({
      method: 'DELETE',
      url: `${url}/${own.id}`,
      cookies: { [SESSION_COOKIE]: u.cookie },
      headers: { [CSRF_HEADER]: '1' },
      payload: { password: u.password },
    });
    expect(disabled.statusCode).toBe(204);

    // An admin for another user: on at once, and off again without proof.
    const v = await signedInUser(ctx);
    const byAdmin = await admin.post(`/api/users/${v.id}/2fas/totp`);
    expect(byAdmin.statusCode).toBe(201);
    const vTotp = byAdmin.json<{ id: number; recovery_code: string }>();
    expect((await admin.del(`/api/users/${v.id}/2fas/totp/${vTotp.id}`)).statusCode).toBe(204);

    // The recovery code at sign-in removes the method; the user signing in acts.
    const w = await signedInUser(ctx);
    const wTotp = (await admin.post(`/api/users/${w.id}/2fas/totp`)).json<{ id: number; recovery_code: string }>();
    const login = await ctx.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { auth: w.username, password: w.password },
    });
    const pending = callerFor(ctx, { ...w, cookie: login.cookies.find((c) => c.name === SESSION_COOKIE)!.value });
    expect((await pending.post('/api/auth/recovery', { recovery_code: wTotp.recovery_code })).statusCode).toBe(204);

    const res = await admin.get('/api/audit?limit=500&object_type=totp');
    for (const secret of [
      first.secret,
      first.recovery_code,
      own.secret,
      own.recovery_code,
      vTotp.recovery_code,
      wTotp.recovery_code,
    ])
      expect(res.body).not.toContain(secret);
    const of = (userId: number) =>
      res
        .json<Entries>()
        .filter((e) => e.object_id === userId)
        .reverse()
        .map((e) => ({ action: e.action, actor: e.actor, before: e.before, after: e.after }));
    expect(of(u.id)).toEqual([
      { action: 'create', actor: u.username, before: null, after: { enabled: true, confirmed: false } },
      { action: 'delete', actor: u.username, before: { enabled: true, confirmed: false }, after: null },
      { action: 'create', actor: u.username, before: null, after: { enabled: true, confirmed: false } },
      { action: 'update', actor: u.username, before: { confirmed: false }, after: { confirmed: true } },
      { action: 'delete', actor: u.username, before: { enabled: true, confirmed: true }, after: null },
    ]);
    expect(of(v.id)).toEqual([
      { action: 'create', actor: admin.username, before: null, after: { enabled: true, confirmed: true } },
      { action: 'delete', actor: admin.username, before: { enabled: true, confirmed: true }, after: null },
    ]);
    expect(of(w.id)).toEqual([
      { action: 'create', actor: admin.username, before: null, after: { enabled: true, confirmed: true } },
      {
        action: 'delete',
        actor: w.username,
        before: { enabled: true, confirmed: true, recovery_code_used: false },
        after: { enabled: false, confirmed: false, recovery_code_used: true },
      },
    ]);
    // The removal and the sign-in it completed are one request.
    const removal = res.json<Entries>().find((e) => e.object_id === w.id && e.action === 'delete')!;
    expect(removal).toMatchObject({ actor_id: w.id, auth_kind: 'session', project_id: null });
    const [signIn] = await entries(admin, `action=sign_in&actor=${w.username}`);
    expect(signIn).toMatchObject({ after: { second_factor: true }, request_id: removal.request_id });
    expect((await verify()).ok).toBe(true);
  });

  it("records a runner's cache clearing, global or a project's", async () => {
    const admin = await signedInUser(t(), { admin: true });
    const p = await createProject(admin);
    const global = (await admin.post('/api/runners', { name: 'box' })).json<{ id: number }>().id;
    const own = (await admin.post(`/api/project/${p}/runners`, { name: 'proj-box', tag: 'linux' })).json<{
      id: number;
    }>().id;
    expect((await admin.del(`/api/runners/${global}/cache`)).statusCode).toBe(204);
    // Asked again before the runner polled: still an entry, noting the request already waiting.
    expect((await admin.del(`/api/runners/${global}/cache`)).statusCode).toBe(204);
    expect((await admin.del(`/api/project/${p}/runners/${own}/cache`)).statusCode).toBe(204);
    // Another project's runner is not found through this project, and is no entry.
    expect((await admin.del(`/api/project/${p}/runners/${global}/cache`)).statusCode).toBe(404);
    const all = (await entries(admin, 'object_type=runner_cache'))
      .filter((e) => e.object_id === global || e.object_id === own)
      .reverse()
      .map((e) => [e.action, e.object_id, e.project_id, e.actor, e.before, e.after]);
    expect(all).toEqual([
      ['delete', global, null, admin.username, { runner: 'box', cleaning_requested: false }, null],
      ['delete', global, null, admin.username, { runner: 'box', cleaning_requested: true }, null],
      ['delete', own, p, admin.username, { runner: 'proj-box', cleaning_requested: false }, null],
    ]);
    expect((await verify()).ok).toBe(true);
  });

  it('records the memberships and admin flag group mappings change at sign-in, as Gantry in the sign-in request', async () => {
    const ctx = t();
    const admin = await signedInUser(ctx, { admin: true });
    const p = await createProject(admin);
    const g = uniq('grp');
    for (const body of [
      { source: 'corp', group: `${g}-dev`, project_id: p, role: 'task_runner' },
      { source: 'corp', group: `${g}-lead`, project_id: p, role: 'manager' },
      { source: 'corp', group: `${g}-admins`, admin: true },
    ])
      expect((await admin.post('/api/identity/mappings', body)).statusCode).toBe(201);
    const name = uniq('ext');
    const person = { sub: `sub-${name}`, preferred_username: name, email: `${name}@idp.example`, name };
    const signIn = async (groups: string[]) => {
      provider().user = { ...person, groups };
      return oidcSignIn(ctx, 'corp', name);
    };
    const user = await signIn([`${g}-dev`, `${g}-admins`]);
    await signIn([`${g}-lead`, `${g}-admins`]);
    await signIn([]);

    const all = (await entries(admin, 'offset=0')).reverse();
    const mine = all.filter(
      (e) =>
        e.object_id === user.id &&
        (e.object_type === 'team_member' || (e.object_type === 'user' && e.action === 'update')),
    );
    const member = (role: string, group: string) => ({ user_id: user.id, username: name, role, source: 'corp', group });
    expect(mine.map((e) => [e.action, e.object_type, e.project_id, e.before, e.after])).toEqual([
      ['update', 'user', null, { admin: false }, { admin: true }],
      ['create', 'team_member', p, null, member('task_runner', `${g}-dev`)],
      ['update', 'team_member', p, { role: 'task_runner', group: `${g}-dev` }, { role: 'manager', group: `${g}-lead` }],
      ['update', 'user', null, { admin: true }, { admin: false }],
      ['delete', 'team_member', p, member('manager', `${g}-lead`), null],
    ]);
    // Gantry acts (the admin's rules decide), in the request of the sign-in that applied them.
    const signIns = all.filter((e) => e.action === 'sign_in' && e.actor_id === user.id);
    expect(signIns).toHaveLength(3);
    const requestOf = [0, 0, 1, 2, 2];
    mine.forEach((e, i) =>
      expect(e).toMatchObject({
        actor: null,
        actor_id: null,
        auth_kind: 'system',
        request_id: signIns[requestOf[i]!]!.request_id,
      }),
    );
    expect(signIns[0]).toMatchObject({ actor: name, auth_kind: 'session' });
    expect((await verify()).ok).toBe(true);
  });

  it('leaves a chain `gantry audit verify` passes', async () => {
    const out: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => (out.push(String(chunk)), true));
    try {
      const code = await auditCommand('verify', {
        GANTRY_DATA_DIR: t().config.dataDir,
        GANTRY_DB_URL: t().config.dbUrl,
        GANTRY_LOG_LEVEL: 'silent',
      });
      expect(code, out.join('')).toBe(0);
    } finally {
      vi.restoreAllMocks();
    }
    expect(out.join('')).toMatch(/\d+ entries verified/);
  });
});
