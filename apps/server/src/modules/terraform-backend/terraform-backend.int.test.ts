import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { httpBackendBlock } from '@gantry/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runnerTaskSandbox } from '../../engine/sandbox.js';
import { RunnerAgent } from '../../remote-runner/agent.js';
import { httpRunnerServer } from '../../remote-runner/server-client.js';
import { gitRepo } from '../../test/git-fixture.js';
import { createProject, engines, signedInUser, useTestApp, type Caller, type TestContext } from '../../test/harness.js';
import { runTask, setupTemplate, taskLog, waitForTask } from '../../test/tasks.js';

/*
 * Real terraform (and OpenTofu, driven through the same binary as `tofu`) against Gantry's HTTP
 * state backend on a listening server.
 */
const TERRAFORM = '/usr/local/bin/terraform';
const binDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gantry-tf-bin-'));
fs.symlinkSync(TERRAFORM, path.join(binDir, 'tofu'));
const LOGIN = 'laptop';
const PASSWORD = 'tf-backend-pw-4711';

/** `count` instances; `pause` seconds of a provisioner per instance, to keep an apply (and its lock) going. */
const config = (count: number, pause = 0) => `
variable "n" {
  type    = number
  default = ${count}
}
resource "terraform_data" "web" {
  count = var.n
  input = "web-\${count.index}"
${pause ? `  provisioner "local-exec" {\n    command = "sleep ${pause}"\n  }\n` : ''}}
`;

interface TfResult {
  code: number;
  out: string;
}

/** Runs terraform (or `tofu`) in `dir` like a person on a laptop, credentials in TF_HTTP_*. */
function tf(dir: string, args: string[], password = PASSWORD, exe = TERRAFORM): Promise<TfResult> {
  const env = {
    PATH: `${binDir}:${process.env.PATH ?? '/usr/bin:/bin'}`,
    HOME: dir,
    TF_IN_AUTOMATION: '1',
    TF_INPUT: '0',
    CHECKPOINT_DISABLE: '1',
    TF_HTTP_PASSWORD: password,
    TF_HTTP_RETRY_MAX: '0',
  };
  return new Promise((resolve) => {
    execFile(exe, [...args, '-no-color'], { cwd: dir, env, timeout: 60_000 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
      resolve({ code, out: `${stdout}${stderr}` });
    });
  });
}

/** A working folder with the configuration and a `backend "http"` block pasted from the console's helper. */
function workdir(url: string, body: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gantry-tf-'));
  fs.writeFileSync(path.join(dir, 'backend.tf'), httpBackendBlock(url, LOGIN));
  fs.writeFileSync(path.join(dir, 'main.tf'), body);
  return dir;
}

/** A workspace with an alias whose key is LOGIN/PASSWORD; answers the ids and the alias. */
async function aliasedWorkspace(c: Caller, p: number, name = 'prod') {
  const key = (
    await c.post(`/api/project/${p}/keys`, {
      name: `k-${name}`,
      type: 'login_password',
      login_password: { login: LOGIN, password: PASSWORD },
    })
  ).json<{ id: number }>();
  const inv = (
    await c.post(`/api/project/${p}/inventory`, {
      name,
      type: 'terraform-workspace',
      inventory: name,
      ssh_key_id: key.id,
    })
  ).json<{ id: number }>();
  const alias = (
    await c.post(`/api/project/${p}/inventory/${inv.id}/terraform/aliases`, { auth_key_id: key.id })
  ).json<{ id: string }>();
  return { keyId: key.id, inventoryId: inv.id, alias: alias.id };
}

type Version = {
  id: number;
  task_id: number | null;
  serial: number | null;
  resource_count: number | null;
  alias_hint: string | null;
  status: string;
};
const versions = async (c: Caller, p: number, inv: number) =>
  (await c.get(`/api/project/${p}/inventory/${inv}/terraform/states`)).json<Version[]>();

/** Listens on a free port; answers the base URL terraform reaches the server at. */
async function listen(t: TestContext): Promise<string> {
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const a = t.app.server.address();
  if (!a || typeof a === 'string') throw new Error('no address');
  return `http://127.0.0.1:${a.port}`;
}

describe.each(engines)('terraform http backend with real terraform ($name)', (engine) => {
  const t = useTestApp(engine);
  let base = '';
  let admin: Caller;
  beforeAll(async () => {
    base = await listen(t());
    admin = await signedInUser(t(), { admin: true });
  });

  it('init, apply, apply a change: two versions, the new serial; a fresh folder (tofu) lists the resources', async () => {
    const p = await createProject(admin);
    const ws = await aliasedWorkspace(admin, p);
    const url = `${base}/api/terraform/${ws.alias}`;
    const dir = workdir(url, config(2));
    expect((await tf(dir, ['init', '-input=false'])).code).toBe(0);
    const first = await tf(dir, ['apply', '-auto-approve', '-input=false']);
    expect(first.out).toMatch(/Apply complete! Resources: 2 added/);
    const second = await tf(dir, ['apply', '-auto-approve', '-input=false', '-var', 'n=3']);
    expect(second.out).toMatch(/Apply complete! Resources: 1 added/);

    const list = await versions(admin, p, ws.inventoryId);
    expect(list).toHaveLength(2);
    expect(list[0]!.serial).toBeGreaterThan(list[1]!.serial!);
    expect(list.map((v) => v.resource_count)).toEqual([3, 2]);
    expect(list[0]).toMatchObject({ task_id: null, alias_hint: `${ws.alias.slice(0, 6)}…` });
    // Nothing left locked, and the state is terraform's own (no local copy in the folder).
    expect(
      await t().db.db.selectFrom('terraform_lock').selectAll().where('inventory_id', '=', ws.inventoryId).execute(),
    ).toEqual([]);
    expect(fs.existsSync(path.join(dir, 'terraform.tfstate'))).toBe(false);

    const fresh = workdir(url, config(3));
    expect((await tf(fresh, ['init', '-input=false'], PASSWORD, path.join(binDir, 'tofu'))).code).toBe(0);
    const listed = await tf(fresh, ['state', 'list'], PASSWORD, path.join(binDir, 'tofu'));
    expect(listed.out.trim().split('\n').sort()).toEqual([
      'terraform_data.web[0]',
      'terraform_data.web[1]',
      'terraform_data.web[2]',
    ]);
  });

  it('two applies at once: one gets the lock error (423), nothing is lost', async () => {
    const p = await createProject(admin);
    const ws = await aliasedWorkspace(admin, p);
    const url = `${base}/api/terraform/${ws.alias}`;
    const slow = workdir(url, config(1, 2));
    const other = workdir(url, config(1));
    await Promise.all([tf(slow, ['init', '-input=false']), tf(other, ['init', '-input=false'])]);
    const running = tf(slow, ['apply', '-auto-approve', '-input=false']);
    // Start the second one while the first holds the lock.
    await expect
      .poll(
        async () =>
          (
            await t()
              .db.db.selectFrom('terraform_lock')
              .select('lock_id')
              .where('inventory_id', '=', ws.inventoryId)
              .execute()
          ).length,
        { timeout: 20_000 },
      )
      .toBe(1);
    const refused = await tf(other, ['apply', '-auto-approve', '-input=false']);
    const done = await running;
    expect(done.code, done.out).toBe(0);
    expect(refused.code).not.toBe(0);
    expect(refused.out).toMatch(/Error acquiring the state lock/);
    expect(refused.out).toMatch(/423|locked/i);

    // What the first one applied is there; the second one, run again, sees it and changes nothing.
    const list = await versions(admin, p, ws.inventoryId);
    expect(list).toHaveLength(1);
    expect(list[0]!.resource_count).toBe(1);
    const again = await tf(other, ['apply', '-auto-approve', '-input=false']);
    expect(again.out).toMatch(/No changes|Resources: 0 added/);
    expect(await versions(admin, p, ws.inventoryId)).toHaveLength(1);
  });

  it('a wrong password fails init the same way an unknown alias does; the state is unchanged; rotation stops the old address', async () => {
    const p = await createProject(admin);
    const ws = await aliasedWorkspace(admin, p);
    const url = `${base}/api/terraform/${ws.alias}`;
    const good = workdir(url, config(1));
    expect((await tf(good, ['init', '-input=false'])).code).toBe(0);
    expect((await tf(good, ['apply', '-auto-approve', '-input=false'])).code).toBe(0);
    const before = await versions(admin, p, ws.inventoryId);

    const wrong = await tf(workdir(url, config(2)), ['init', '-input=false'], 'not-the-password');
    const unknownAlias = 'abcdefghijklmnopqrstuvwxyz012345';
    const unknown = await tf(workdir(`${base}/api/terraform/${unknownAlias}`, config(2)), ['init', '-input=false']);
    expect(wrong.code).not.toBe(0);
    expect(unknown.code).not.toBe(0);
    const errorOf = (r: TfResult, alias: string) =>
      r.out
        .replaceAll(alias, 'ALIAS')
        .replace(/\s+/g, ' ')
        .match(/Error: .*/)?.[0];
    expect(errorOf(wrong, ws.alias)).toBeDefined();
    expect(errorOf(wrong, ws.alias)).toBe(errorOf(unknown, unknownAlias));
    expect(await versions(admin, p, ws.inventoryId)).toEqual(before);

    const rotated = (
      await admin.post(`/api/project/${p}/inventory/${ws.inventoryId}/terraform/aliases/${ws.alias}/rotate`)
    ).json<{ id: string }>();
    const old = await tf(good, ['state', 'list']);
    expect(old.code).not.toBe(0);
    expect(old.out).toMatch(/401|auth/i);
    const moved = await tf(workdir(`${base}/api/terraform/${rotated.id}`, config(1)), ['init', '-input=false']);
    expect(moved.code).toBe(0);
  });

  it('a Gantry task on a workspace with the backend on keeps its state there and holds the lock from plan to apply', async () => {
    const p = await createProject(admin);
    const ws = await aliasedWorkspace(admin, p, 'shared');
    const s = await setupTemplate(admin, p, gitRepo({ 'infra/main.tf': config(2) }), {
      app: 'terraform',
      playbook: 'infra',
      inventory_id: ws.inventoryId,
    });
    expect(
      (await admin.post(`/api/project/${p}/templates/${s.templateId}/inventory/${ws.inventoryId}/set_default`))
        .statusCode,
    ).toBe(204);
    expect(
      (await admin.put(`/api/project/${p}/inventory/${ws.inventoryId}/terraform/backend`, { enabled: true }))
        .statusCode,
    ).toBe(200);
    const url = `${base}/api/terraform/${ws.alias}`;
    const laptop = workdir(url, config(2));
    expect((await tf(laptop, ['init', '-input=false'])).code).toBe(0);

    const id = await runTask(admin, p, { template_id: s.templateId });
    await waitForTask(admin, p, id, ['waiting_confirmation']);
    // The plan waits for confirmation: the lock is the task's, a laptop cannot apply meanwhile.
    const blocked = await tf(laptop, ['apply', '-auto-approve', '-input=false']);
    expect(blocked.code).not.toBe(0);
    expect(blocked.out).toMatch(/Error acquiring the state lock/);
    expect(blocked.out).toContain(`already locked: ID=gantry-task-${id}`);
    expect((await admin.post(`/api/project/${p}/tasks/${id}/confirm`)).statusCode).toBe(204);
    const done = await waitForTask(admin, p, id);
    const log = (await taskLog(admin, p, id)).join('\n');
    expect(done.status, log).toBe('success');
    expect(log).toMatch(/Apply complete! Resources: 2 added/);
    expect(log).toContain("State: Gantry's HTTP state backend");
    expect(log).not.toMatch(/Initializing the backend[\s\S]*local/i);

    const list = await versions(admin, p, ws.inventoryId);
    expect(list[0]).toMatchObject({ task_id: id, resource_count: 2, alias_hint: null, status: 'success' });
    // The task's session ended with it: its one-time alias is gone and the lock is free again.
    await expect
      .poll(
        async () =>
          (await t().db.db.selectFrom('terraform_alias').select('id').where('task_id', '=', id).execute()).length,
      )
      .toBe(0);
    const shared = await tf(laptop, ['apply', '-auto-approve', '-input=false']);
    expect(shared.out).toMatch(/No changes/);

    // A rejected plan lets the lock go too.
    const rejected = await runTask(admin, p, { template_id: s.templateId });
    await waitForTask(admin, p, rejected, ['waiting_confirmation']);
    expect((await admin.post(`/api/project/${p}/tasks/${rejected}/reject`)).statusCode).toBe(204);
    expect((await waitForTask(admin, p, rejected)).status).toBe('rejected');
    expect((await tf(laptop, ['apply', '-auto-approve', '-input=false'])).code).toBe(0);
  }, 90_000);
});

describe.each(engines)('terraform http backend from a remote runner ($name)', (engine) => {
  const t = useTestApp(engine, { GANTRY_USE_REMOTE_RUNNER: 'true' });
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gantry-tf-runner-'));
  let agent: RunnerAgent | undefined;
  let base = '';
  let admin: Caller;
  beforeAll(async () => {
    base = await listen(t());
    admin = await signedInUser(t(), { admin: true });
    const runner = (await admin.post('/api/runners', { name: 'tf', tag: 'tf' })).json<{
      token: string;
      private_key: string;
    }>();
    const keyFile = path.join(workDir, 'runner.pem');
    fs.writeFileSync(keyFile, runner.private_key, { mode: 0o600 });
    const systemPath = process.env.PATH ?? '/usr/bin:/bin';
    agent = new RunnerAgent({
      server: httpRunnerServer(base, runner.token),
      serverUrl: base,
      privateKey: runner.private_key,
      workDir: path.join(workDir, 'work'),
      pollMs: 100,
      systemPath,
      sandbox: runnerTaskSandbox({
        taskSandbox: 'auto',
        workDir: path.join(workDir, 'work'),
        privateKeyFile: keyFile,
        systemPath,
      }),
      log: () => undefined,
    });
    agent.start();
  });
  afterAll(async () => {
    await agent?.stop();
  });

  it("stores a runner task's state as a version of the workspace, not in the runner's folder", async () => {
    const p = await createProject(admin);
    const ws = await aliasedWorkspace(admin, p);
    const s = await setupTemplate(admin, p, gitRepo({ 'main.tf': config(1) }), {
      app: 'terraform',
      playbook: '',
      runner_tag: 'tf',
      inventory_id: ws.inventoryId,
      task_params: { auto_approve: true },
    });
    expect(
      (await admin.post(`/api/project/${p}/templates/${s.templateId}/inventory/${ws.inventoryId}/set_default`))
        .statusCode,
    ).toBe(204);
    expect(
      (await admin.put(`/api/project/${p}/inventory/${ws.inventoryId}/terraform/backend`, { enabled: true }))
        .statusCode,
    ).toBe(200);
    const id = await runTask(admin, p, { template_id: s.templateId });
    const done = await waitForTask(admin, p, id, undefined, 60_000);
    const log = (await taskLog(admin, p, id)).join('\n');
    expect(done.status, log).toBe('success');
    expect(done.runner_id).toBeTruthy();
    const list = await versions(admin, p, ws.inventoryId);
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({ task_id: id, resource_count: 1 });
    expect(fs.existsSync(path.join(workDir, 'work', 'terraform', `template_${s.templateId}`))).toBe(false);
    // Someone on a laptop sees what the runner applied.
    const laptop = workdir(`${base}/api/terraform/${ws.alias}`, config(1));
    expect((await tf(laptop, ['init', '-input=false'])).code).toBe(0);
    expect((await tf(laptop, ['state', 'list'])).out.trim()).toBe('terraform_data.web[0]');
  });
});
