import { describe, expect, it } from 'vitest';
import { gitRepo } from '../../test/git-fixture.js';
import { addMember, createProject, engines, signedInUser, type Caller, useTestApp } from '../../test/harness.js';
import { createKey } from '../../test/resources.js';
import { runTask, setupTemplate, waitForTask } from '../../test/tasks.js';

const MAIN_TF = `
resource "terraform_data" "example" {
  input = "visible-input"
}
output "pw" {
  value     = "s3cret-canary"
  sensitive = true
}
output "greeting" {
  value = "hello-ws"
}
`;

async function workspace(
  c: Caller,
  p: number,
  keyId: number,
  name: string,
  type = 'terraform-workspace',
): Promise<number> {
  const res = await c.post(`/api/project/${p}/inventory`, { name, type, inventory: name, ssh_key_id: keyId });
  if (res.statusCode !== 201) throw new Error(`inventory: ${res.body}`);
  return res.json<{ id: number }>().id;
}

describe.each(engines)('terraform workspaces and state versions ($name)', (engine) => {
  const t = useTestApp(engine);

  it('attaches, detaches and sets the default workspace by the rules', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const p = await createProject(admin);
    const s = await setupTemplate(admin, p, gitRepo({ 'main.tf': MAIN_TF }), { app: 'terraform', playbook: '' });
    const base = `/api/project/${p}/templates/${s.templateId}/inventory`;
    const ws1 = await workspace(admin, p, s.keyId, 'one');
    const ws2 = await workspace(admin, p, s.keyId, 'two');
    const tofuWs = await workspace(admin, p, s.keyId, 'tofu-one', 'tofu-workspace');
    const staticInv = (
      await admin.post(`/api/project/${p}/inventory`, {
        name: 'hosts',
        type: 'static',
        inventory: 'localhost',
        ssh_key_id: s.keyId,
      })
    ).json<{ id: number }>().id;
    const other = await createProject(admin);
    const otherWs = await workspace(admin, other, await createKey(admin, other), 'elsewhere');

    expect((await admin.post(`${base}/${ws1}/attach`)).statusCode).toBe(204);
    for (const bad of [tofuWs, staticInv, otherWs])
      expect((await admin.post(`${base}/${bad}/attach`)).statusCode).toBe(400);
    const listed = await admin.get(`/api/project/${p}/inventory?template_id=${s.templateId}`);
    expect(listed.json<Array<{ id: number }>>().map((i) => i.id)).toEqual([ws1]);

    // set_default attaches a workspace that is not attached yet.
    expect((await admin.post(`${base}/${ws2}/set_default`)).statusCode).toBe(204);
    expect((await admin.get(`/api/project/${p}/templates/${s.templateId}`)).json()).toMatchObject({
      inventory_id: ws2,
    });
    expect((await admin.get(`/api/project/${p}/inventory/${ws2}`)).json()).toMatchObject({ template_id: s.templateId });
    expect((await admin.post(`${base}/${ws2}/detach`)).json()).toEqual({
      error: 'The default workspace cannot be detached',
      code: 'default_workspace_detach',
    });
    expect((await admin.post(`${base}/${ws1}/detach`)).statusCode).toBe(204);
    expect((await admin.get(`/api/project/${p}/inventory/${ws1}`)).json()).toMatchObject({ template_id: null });
    expect((await admin.post(`${base}/${ws1}/detach`)).statusCode).toBe(400);

    // Another template cannot take a workspace that is attached.
    const bash = await admin.post(`/api/project/${p}/templates`, {
      name: 'b',
      app: 'terraform',
      playbook: '',
      repository_id: s.repositoryId,
      environment_id: s.environmentId,
    });
    expect(
      (await admin.post(`/api/project/${p}/templates/${bash.json<{ id: number }>().id}/inventory/${ws2}/attach`))
        .statusCode,
    ).toBe(400);

    const events = (await admin.get(`/api/project/${p}/events/last`)).body;
    expect(events).toContain('Workspace one attached');
    expect(events).toContain('Workspace two is now the default');

    // Managing workspaces needs manageProjectResources; reading states does not.
    const runner = await signedInUser(t());
    await addMember(t(), p, runner.id, 'task_runner');
    expect((await runner.post(`${base}/${ws1}/attach`)).statusCode).toBe(403);
    expect((await runner.get(`/api/project/${p}/inventory/${ws2}/terraform/states`)).statusCode).toBe(200);
    const outsider = await signedInUser(t());
    expect((await outsider.get(`/api/project/${p}/inventory/${ws2}/terraform/states`)).statusCode).toBe(404);
  });

  it('stores a version of the workspace state per run, redacted when read', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const p = await createProject(admin);
    const s = await setupTemplate(admin, p, gitRepo({ 'main.tf': MAIN_TF }), {
      app: 'terraform',
      playbook: '',
      task_params: { auto_approve: true },
    });
    const ws = await workspace(admin, p, s.keyId, 'staging');
    expect(
      (await admin.post(`/api/project/${p}/templates/${s.templateId}/inventory/${ws}/set_default`)).statusCode,
    ).toBe(204);
    const states = `/api/project/${p}/inventory/${ws}/terraform/states`;
    expect((await admin.get(states)).json()).toEqual([]);
    expect((await admin.get(`${states}/1`)).json()).toEqual({ error: 'No state available.', code: 'state_not_found' });

    const id = await runTask(admin, p, { template_id: s.templateId });
    expect((await waitForTask(admin, p, id)).status).toBe('success');
    const list = (await admin.get(states)).json<
      Array<{ id: number; task_id: number; status: string; created: string }>
    >();
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({ task_id: id, status: 'success' });

    const one = await admin.get(`${states}/${list[0]!.id}`);
    expect(one.statusCode).toBe(200);
    expect(one.body).not.toContain('s3cret-canary');
    const state = JSON.parse(one.json<{ state: string }>().state) as {
      outputs: Record<string, { value: string }>;
      resources: Array<{ type: string }>;
    };
    expect(state.outputs.pw!.value).toBe('(sensitive)');
    expect(state.outputs.greeting!.value).toBe('hello-ws');
    expect(state.resources.map((r) => r.type)).toEqual(['terraform_data']);

    // The database holds it sealed.
    const row = await t().db.db.selectFrom('terraform_state').select('state').executeTakeFirstOrThrow();
    expect(row.state).not.toContain('s3cret-canary');

    // A run that changes nothing stores no new version.
    const again = await runTask(admin, p, { template_id: s.templateId });
    expect((await waitForTask(admin, p, again)).status).toBe('success');
    expect((await admin.get(states)).json()).toHaveLength(1);
  });
});
