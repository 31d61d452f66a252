import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { commitFiles, gitRepo } from '../test/git-fixture.js';
import { createProject, engines, signedInUser, useTestApp, type Caller } from '../test/harness.js';
import { runTask, setupTemplate, taskLog, waitForTask } from '../test/tasks.js';

/*
 * Real terraform runs whose checkout or task plants links where the server reads or writes
 * (issue 19): the server follows none of them.
 */
const TERRAFORM = '/usr/local/bin/terraform';
const RESOURCE = `
resource "terraform_data" "example" {
  input = "hello"
}
`;
/** A resource whose provisioner runs `command` in the configuration's folder during the apply. */
const planting = (command: string) => `
resource "terraform_data" "plant" {
  input = "x"
  provisioner "local-exec" {
    command = ${JSON.stringify(command)}
  }
}
`;
/** A valid state, so only the link (not its content) can keep it out. */
const CANARY_STATE = JSON.stringify({
  version: 4,
  terraform_version: '1.11.0',
  serial: 99,
  lineage: 'canary-lineage',
  outputs: { leaked_output: { value: 'CANARY-SECRET-BYTES', type: 'string' } },
  resources: [],
});

async function defaultWorkspace(
  c: Caller,
  p: number,
  keyId: number,
  templateId: number,
  name = 'default',
): Promise<number> {
  const inv = await c.post(`/api/project/${p}/inventory`, {
    name,
    type: 'terraform-workspace',
    inventory: name,
    ssh_key_id: keyId,
  });
  if (inv.statusCode !== 201) throw new Error(`inventory: ${inv.body}`);
  const id = inv.json<{ id: number }>().id;
  const set = await c.post(`/api/project/${p}/templates/${templateId}/inventory/${id}/set_default`);
  if (set.statusCode !== 204) throw new Error(`set_default: ${set.body}`);
  return id;
}

const outsideDir = () => fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'gantry-outside-')));

describe.each(engines)('terraform: the server follows no link in a workspace ($name)', (engine) => {
  const t = useTestApp(engine);
  let admin: Caller;
  beforeAll(async () => {
    // The HTTP state backend needs the server's address: it is where it listens.
    await t().app.listen({ port: 0, host: '127.0.0.1' });
    admin = await signedInUser(t(), { admin: true });
  });

  it('has terraform on this machine', () => {
    expect(fs.existsSync(TERRAFORM)).toBe(true);
  });

  it('a state link the task plants during the apply is not followed: no version, summary or saved copy holds its target', async () => {
    const canary = path.join(t().config.dataDir, 'planted-secret.key');
    fs.writeFileSync(canary, CANARY_STATE, { mode: 0o600 });
    const p = await createProject(admin);
    const repo = gitRepo({ 'main.tf': RESOURCE + planting(`ln -sf ${canary} terraform.tfstate`) });
    const s = await setupTemplate(admin, p, repo, {
      app: 'terraform',
      playbook: '',
      task_params: { auto_approve: true },
    });
    const ws = await defaultWorkspace(admin, p, s.keyId, s.templateId);

    const id = await runTask(admin, p, { template_id: s.templateId });
    const done = await waitForTask(admin, p, id);
    const log = (await taskLog(admin, p, id)).join('\n');
    expect(done.status, log).toBe('success');

    const versions = await admin.get(`/api/project/${p}/inventory/${ws}/terraform/states`);
    expect(versions.json()).toEqual([]);
    const rows = await t().db.db.selectFrom('terraform_state').select('state').where('inventory_id', '=', ws).execute();
    expect(rows).toEqual([]);
    const summary = await admin.get(`/api/project/${p}/templates/${s.templateId}/terraform/state`);
    expect(summary.body).not.toContain('leaked_output');
    expect(summary.json()).toEqual({ error: 'No state available.', code: 'state_not_found' });
    const saved = path.join(t().config.dataDir, 'terraform', `template_${s.templateId}`, 'terraform.tfstate');
    expect(fs.existsSync(saved) && fs.lstatSync(saved).isSymbolicLink()).toBe(false);
    expect(fs.readFileSync(canary, 'utf8')).toBe(CANARY_STATE);
    expect(log).toContain('State not recorded: terraform.tfstate: is a symbolic link');
    expect(log).toContain('Local state: terraform.tfstate not saved: is a symbolic link');
  });

  it('a planted state that is not a Terraform state is not recorded, and the log says why', async () => {
    const p = await createProject(admin);
    const repo = gitRepo({
      'main.tf': RESOURCE + planting('rm -f terraform.tfstate && echo NOT-A-STATE-secret > terraform.tfstate'),
    });
    const s = await setupTemplate(admin, p, repo, {
      app: 'terraform',
      playbook: '',
      task_params: { auto_approve: true },
    });
    const ws = await defaultWorkspace(admin, p, s.keyId, s.templateId);

    const id = await runTask(admin, p, { template_id: s.templateId });
    const done = await waitForTask(admin, p, id);
    const log = (await taskLog(admin, p, id)).join('\n');
    expect(done.status, log).toBe('success');
    expect((await admin.get(`/api/project/${p}/inventory/${ws}/terraform/states`)).json()).toEqual([]);
    const saved = path.join(t().config.dataDir, 'terraform', `template_${s.templateId}`, 'terraform.tfstate');
    expect(fs.existsSync(saved)).toBe(false);
    expect(log).toContain('State not recorded: terraform.tfstate is not a Terraform state: it is not JSON');
    expect(log).toContain('Local state: terraform.tfstate not saved: not a Terraform state (it is not JSON)');
  });

  it('a committed backend override file that links outside is replaced, not written through', async () => {
    const victimDir = outsideDir();
    const victim = path.join(victimDir, 'victim.txt');
    fs.writeFileSync(victim, 'precious');
    const repo = gitRepo({ 'infra/main.tf': RESOURCE });
    fs.symlinkSync(victim, path.join(repo, 'infra', 'zz_gantry_backend_override.tf'));
    commitFiles(repo, {});
    const p = await createProject(admin);
    const s = await setupTemplate(admin, p, repo, {
      app: 'terraform',
      playbook: 'infra',
      task_params: { auto_approve: true },
    });
    const ws = await defaultWorkspace(admin, p, s.keyId, s.templateId, 'shared');
    expect((await admin.put(`/api/project/${p}/inventory/${ws}/terraform/backend`, { enabled: true })).statusCode).toBe(
      200,
    );

    const id = await runTask(admin, p, { template_id: s.templateId });
    const done = await waitForTask(admin, p, id);
    const log = (await taskLog(admin, p, id)).join('\n');
    expect(fs.readFileSync(victim, 'utf8')).toBe('precious');
    expect(fs.readdirSync(victimDir)).toEqual(['victim.txt']);
    expect(done.status, log).toBe('success');
    expect(log).toContain("State: Gantry's HTTP state backend");
    expect(log).toMatch(/Apply complete! Resources: 1 added/);
    fs.rmSync(victimDir, { recursive: true, force: true });
  });

  it('restores state over links the checkout planted, and refuses a template folder that links outside', async () => {
    const out = outsideDir();
    fs.writeFileSync(path.join(out, 'main.tf'), RESOURCE);
    fs.writeFileSync(path.join(out, 'victim.txt'), 'precious');
    const repo = gitRepo({ 'infra/main.tf': RESOURCE });
    const p = await createProject(admin);
    const s = await setupTemplate(admin, p, repo, {
      app: 'terraform',
      playbook: 'infra',
      task_params: { auto_approve: true },
    });
    const first = await runTask(admin, p, { template_id: s.templateId });
    expect((await waitForTask(admin, p, first)).status).toBe('success');

    // The state files' places are links out of the workspace: the saved state replaces them.
    fs.symlinkSync(path.join(out, 'victim.txt'), path.join(repo, 'infra', 'terraform.tfstate'));
    fs.symlinkSync(out, path.join(repo, 'infra', 'terraform.tfstate.d'));
    commitFiles(repo, {});
    const second = await runTask(admin, p, { template_id: s.templateId, params: { plan: true } });
    const secondDone = await waitForTask(admin, p, second);
    const secondLog = (await taskLog(admin, p, second)).join('\n');
    expect(fs.readFileSync(path.join(out, 'victim.txt'), 'utf8')).toBe('precious');
    expect(fs.readdirSync(out).sort()).toEqual(['main.tf', 'victim.txt']);
    expect(secondDone.status, secondLog).toBe('success');
    expect(secondLog).toMatch(/No changes/);

    // The template's folder itself links outside: nothing is written there, the run fails.
    fs.rmSync(path.join(repo, 'infra'), { recursive: true, force: true });
    fs.symlinkSync(out, path.join(repo, 'infra'));
    commitFiles(repo, {});
    const third = await runTask(admin, p, { template_id: s.templateId });
    const thirdDone = await waitForTask(admin, p, third);
    const thirdLog = (await taskLog(admin, p, third)).join('\n');
    expect(fs.readdirSync(out).sort()).toEqual(['main.tf', 'victim.txt']);
    expect(thirdDone.status, thirdLog).toBe('error');
    expect(thirdLog).toContain('infra: is a link that leaves the repository');
    fs.rmSync(out, { recursive: true, force: true });
  });
});
