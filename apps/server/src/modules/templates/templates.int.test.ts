import { describe, expect, it } from 'vitest';
import { createProject, engines, signedInUser, useTestApp, type Caller } from '../../test/harness.js';
import { insertReturningId } from '../../db/portable.js';
import { createKey } from '../../test/resources.js';

async function resources(c: Caller, p: number) {
  const key = await createKey(c, p);
  const login = await createKey(c, p, 'login_password', 'vault-pass');
  const repository_id = (await c.post(`/api/project/${p}/repositories`, { name: 'r', git_url: '/srv/r', ssh_key_id: key })).json().id;
  const environment_id = (await c.post(`/api/project/${p}/environment`, { name: 'e' })).json().id;
  const inventory_id = (await c.post(`/api/project/${p}/inventory`, { name: 'i', type: 'static', ssh_key_id: key })).json().id;
  return { key, login, repository_id, environment_id, inventory_id };
}

describe.each(engines)('templates ($name)', (engine) => {
  const t = useTestApp(engine);

  it('creates, reads, updates, copies through POST, and deletes a template with survey and vaults', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const p = await createProject(admin);
    const r = await resources(admin, p);
    const body = {
      name: 'Deploy web',
      app: 'ansible',
      playbook: 'site.yml',
      repository_id: r.repository_id,
      environment_id: r.environment_id,
      inventory_id: r.inventory_id,
      arguments: '["--forks", "5"]',
      survey_vars: [
        { name: 'size', title: 'Size', type: 'int', required: true, default_value: '3' },
        { name: 'env', title: 'Environment', type: 'enum', values: [{ name: 'Prod', value: 'prod' }, { name: 'Dev', value: 'dev' }] },
      ],
      vaults: [{ name: 'Prod ', type: 'password', vault_key_id: r.login }, { type: 'script', script: 'vault/get-client.py' }],
      task_params: { allow_debug: true, limit: ['web'] },
    };
    const created = await admin.post(`/api/project/${p}/templates`, body);
    expect(created.statusCode).toBe(201);
    const tpl = created.json();
    expect(tpl).toMatchObject({ name: 'Deploy web', type: '', app: 'ansible', playbook: 'site.yml', last_task: null, allow_extra_vars_in_task: false });
    expect(tpl.vaults).toEqual([
      { id: expect.any(Number), name: 'prod', type: 'password', vault_key_id: r.login, script: null },
      { id: expect.any(Number), name: null, type: 'script', vault_key_id: null, script: 'vault/get-client.py' },
    ]);
    expect(tpl.task_params).toMatchObject({ allow_debug: true, limit: ['web'], allow_override_limit: false });
    expect(tpl.survey_vars[1].values).toHaveLength(2);
    // The default value is kept and read back (a new task starts with it as the answer).
    expect(tpl.survey_vars.map((v: { default_value: string }) => v.default_value)).toEqual(['3', '']);

    expect((await admin.put(`/api/project/${p}/templates/${tpl.id}`, { ...body, name: 'Renamed', vaults: [], allow_extra_vars_in_task: true })).statusCode).toBe(204);
    const after = (await admin.get(`/api/project/${p}/templates/${tpl.id}`)).json();
    expect(after).toMatchObject({ name: 'Renamed', vaults: [], allow_extra_vars_in_task: true });
    expect((await admin.put(`/api/project/${p}/templates/${tpl.id}/description`, { description: 'Runs the site playbook' })).statusCode).toBe(204);
    expect((await admin.get(`/api/project/${p}/templates/${tpl.id}`)).json().description).toBe('Runs the site playbook');

    const list = (await admin.get(`/api/project/${p}/templates?app=ansible`)).json();
    expect(list.map((x: { id: number }) => x.id)).toEqual([tpl.id]);
    expect((await admin.get(`/api/project/${p}/templates?app=bash`)).json()).toEqual([]);

    expect((await admin.get(`/api/project/${p}/inventory/${r.inventory_id}/refs`)).json().templates).toEqual([{ id: tpl.id, name: 'Renamed' }]);
    expect((await admin.del(`/api/project/${p}/inventory/${r.inventory_id}`)).statusCode).toBe(409);
    expect((await admin.del(`/api/project/${p}/templates/${tpl.id}`)).statusCode).toBe(204);
    expect((await admin.del(`/api/project/${p}/inventory/${r.inventory_id}`)).statusCode).toBe(204);
  });

  it.each([
    [{ name: '' }, 'Name is required'],
    [{ playbook: '' }, 'Playbook filename is required'],
    [{ playbook: '../../etc/passwd' }, 'Playbook must be a path inside the repository'],
    [{ playbook: '-x.yml' }, 'Playbook must be a path inside the repository'],
    [{ inventory_id: null }, 'Inventory is required'],
    [{ repository_id: undefined }, 'Repository is required'],
    [{ environment_id: undefined }, 'Variable group is required'],
    [{ type: 'build' }, 'Start version is required'],
    [{ type: 'deploy' }, 'Build template is required'],
    [{ arguments: '{"a": 1}' }, 'Arguments must be a JSON list of strings'],
    [{ app: 'cobol' }, 'App not found'],
    [{ app: '' }, 'App is required'],
    [{ survey_vars: [{ name: 'x', title: '' }] }, 'Variable title is required'],
    [{ survey_vars: [{ name: '', title: 'X' }] }, 'Variable name is required'],
    [{ survey_vars: [{ name: 'x', title: 'X', type: 'enum', values: [] }] }, 'Enumeration must have values.'],
    [{ survey_vars: [{ name: 'x', title: 'X', type: 'enum', values: [{ name: 'a', value: '1' }, { name: 'a', value: '2' }] }] }, 'Enumeration values must have unique names.'],
    [{ survey_vars: [{ name: 'x', title: 'X', type: 'enum', values: [{ name: '', value: '1' }] }] }, 'Value name cannot be empty.'],
    [{ survey_vars: [{ name: 'ansible_user', title: 'X' }] }, 'Variable ansible_user is reserved'],
    [{ survey_vars: [{ name: 'LD_PRELOAD', title: 'X' }] }, 'Variable LD_PRELOAD is reserved'],
    [{ git_branch: 'a..b' }, 'Incorrect branch'],
    [{ vaults: [{ type: 'password' }] }, 'Vault password is required'],
    [{ vaults: [{ type: 'script', script: 'vault.sh' }] }, 'Script name must end with -client'],
    [{ vaults: [{ name: 'A', type: 'script', script: 'a-client' }, { name: ' a', type: 'script', script: 'b-client' }] }, 'Vault names must be unique'],
    [{ vaults: [{ type: 'script', script: 'a-client' }, { type: 'script', script: 'b-client' }] }, 'Only one vault may have no name'],
  ])('rejects %o with "%s"', async (over, message) => {
    const admin = await signedInUser(t(), { admin: true });
    const p = await createProject(admin);
    const r = await resources(admin, p);
    const res = await admin.post(`/api/project/${p}/templates`, {
      name: 't',
      app: 'ansible',
      playbook: 'site.yml',
      repository_id: r.repository_id,
      environment_id: r.environment_id,
      inventory_id: r.inventory_id,
      ...over,
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: message, code: expect.any(String), field: expect.any(String) });
    expect((await admin.get(`/api/project/${p}/templates`)).json()).toEqual([]);
  });

  it("shows each template's newest task, among several templates and tasks, in the list and alone", async () => {
    const ctx = t();
    const admin = await signedInUser(ctx, { admin: true });
    const p = await createProject(admin);
    const r = await resources(admin, p);
    const make = async (name: string) =>
      (await admin.post(`/api/project/${p}/templates`, { name, app: 'bash', playbook: 'x.sh', repository_id: r.repository_id, environment_id: r.environment_id })).json().id as number;
    const [a, b, idle] = [await make('a'), await make('b'), await make('idle')];
    // Rows as finished runs leave them, interleaved between the templates.
    const row = (template_id: number) => ({ project_id: p, template_id, status: 'success', message: '', commit_message: '', environment: '{}', params: '{}', created: new Date().toISOString() });
    const ids: number[] = [];
    for (const tpl of [a, b, a, b, a]) ids.push(await insertReturningId(ctx.db.db, 'task', row(tpl)));
    const list = (await admin.get(`/api/project/${p}/templates`)).json() as Array<{ id: number; last_task: { id: number; template_id: number } | null }>;
    const newest = new Map(list.map((x) => [x.id, x.last_task?.id ?? null]));
    expect([newest.get(a), newest.get(b), newest.get(idle)]).toEqual([ids[4], ids[3], null]);
    expect((await admin.get(`/api/project/${p}/templates/${b}`)).json().last_task).toMatchObject({ id: ids[3], template_id: b });
  });

  it('does not need a playbook or inventory for terraform, and refuses a vault key that is not a login', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const p = await createProject(admin);
    const r = await resources(admin, p);
    const base = { name: 'tf', app: 'terraform', repository_id: r.repository_id, environment_id: r.environment_id };
    expect((await admin.post(`/api/project/${p}/templates`, base)).statusCode).toBe(201);
    const bad = await admin.post(`/api/project/${p}/templates`, { ...base, app: 'ansible', playbook: 'x.yml', inventory_id: r.inventory_id, vaults: [{ type: 'password', vault_key_id: r.key }] });
    expect(bad.json()).toEqual({ error: 'A vault password must be a login with password key', code: 'key_must_be_login_password', label_key: 'vault_password', field: 'vaults.0.vault_key_id' });
  });

  it('groups templates into views, reorders them and keeps templates when a view goes', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const p = await createProject(admin);
    const r = await resources(admin, p);
    const v1 = (await admin.post(`/api/project/${p}/views`, { title: 'Deploys', position: 0 })).json();
    const v2 = (await admin.post(`/api/project/${p}/views`, { title: 'Ops', position: 1 })).json();
    expect((await admin.post(`/api/project/${p}/views`, { title: ' ' })).json()).toEqual({ error: 'Title is required', code: 'field_required', label_key: 'title', field: 'title' });
    const tpl = (await admin.post(`/api/project/${p}/templates`, { name: 'in view', app: 'bash', playbook: 'a.sh', repository_id: r.repository_id, environment_id: r.environment_id, view_id: v1.id })).json();
    expect((await admin.get(`/api/project/${p}/views/${v1.id}/templates`)).json().map((x: { id: number }) => x.id)).toEqual([tpl.id]);
    expect((await admin.get(`/api/project/${p}/views/${v2.id}/templates`)).json()).toEqual([]);
    expect((await admin.post(`/api/project/${p}/views/positions`, { [v1.id]: 1, [v2.id]: 0 })).statusCode).toBe(204);
    expect((await admin.get(`/api/project/${p}/views`)).json().map((v: { title: string }) => v.title)).toEqual(['Ops', 'Deploys']);
    expect((await admin.del(`/api/project/${p}/views/${v1.id}`)).statusCode).toBe(204);
    expect((await admin.get(`/api/project/${p}/templates/${tpl.id}`)).json().view_id).toBeNull();
  });

  it('only members with manageProjectResources change templates; task runners run them', async () => {
    const ctx = t();
    const admin = await signedInUser(ctx, { admin: true });
    const p = await createProject(admin);
    const r = await resources(admin, p);
    const tpl = (await admin.post(`/api/project/${p}/templates`, { name: 'x', app: 'bash', playbook: 'a.sh', repository_id: r.repository_id, environment_id: r.environment_id })).json();
    const runner = await signedInUser(ctx);
    const guest = await signedInUser(ctx);
    const { addMember } = await import('../../test/harness.js');
    await addMember(ctx, p, runner.id, 'task_runner');
    await addMember(ctx, p, guest.id, 'guest');
    expect((await runner.put(`/api/project/${p}/templates/${tpl.id}`, { name: 'y' })).statusCode).toBe(403);
    expect((await runner.post(`/api/project/${p}/tasks`, { template_id: tpl.id })).statusCode).toBe(201);
    expect((await guest.post(`/api/project/${p}/tasks`, { template_id: tpl.id })).statusCode).toBe(403);
    expect((await guest.get(`/api/project/${p}/templates/${tpl.id}`)).statusCode).toBe(200);
    const otherProject = await createProject(admin);
    expect((await admin.post(`/api/project/${otherProject}/tasks`, { template_id: tpl.id })).json()).toEqual({ error: 'Template not found in this project', code: 'not_in_project', label_key: 'template', field: 'template_id' });
  });
});
