import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { taskCreateSchema } from '@gantry/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runnerTaskSandbox } from '../engine/sandbox.js';
import { gitRepo } from '../test/git-fixture.js';
import { createProject, engines, signedInUser, useTestApp, type Caller } from '../test/harness.js';
import { runTask, setupTemplate, taskLog, waitForTask } from '../test/tasks.js';
import { RunnerAgent } from './agent.js';
import { httpRunnerServer, RunnerHttpError } from './server-client.js';

const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gantry-runner-out-'));
const keyFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'gantry-runner-out-key-')), 'runner.pem');

/** Outputs passed on through a remote runner: the output comes back with the final status, the inputs go in the sealed job. */
describe.each(engines)('task outputs on a remote runner ($name)', (engine) => {
  const t = useTestApp(engine, { GANTRY_USE_REMOTE_RUNNER: 'true', GANTRY_RUNNER_TIMEOUT_SECONDS: '5' });
  let baseUrl = '';
  let agent: RunnerAgent | undefined;
  let admin: Caller;

  beforeAll(async () => {
    await t().app.listen({ port: 0, host: '127.0.0.1' });
    const address = t().app.server.address();
    if (!address || typeof address === 'string') throw new Error('no address');
    baseUrl = `http://127.0.0.1:${address.port}`;
    admin = await signedInUser(t(), { admin: true });
    const runner = (await admin.post('/api/runners', { name: 'outputs', tag: 'linux', max_parallel_tasks: 2 })).json();
    fs.writeFileSync(keyFile, runner.private_key);
    const systemPath = process.env.PATH ?? '/usr/bin:/bin';
    agent = new RunnerAgent({
      server: httpRunnerServer(baseUrl, runner.token),
      privateKey: runner.private_key,
      workDir,
      pollMs: 100,
      systemPath,
      sandbox: runnerTaskSandbox({ taskSandbox: 'bwrap', workDir, privateKeyFile: keyFile, systemPath }),
      log: () => undefined,
    });
    agent.start();
  });
  afterAll(async () => {
    await agent?.stop();
  });

  it("brings a runner task's output back to the server, and gives it its inputs", async () => {
    const p = await createProject(admin);
    const script =
      'echo "inputs=$GANTRY_OUTPUTS"\nprintf \'{"where": "runner", "got": %s}\' "$GANTRY_OUTPUTS" > "$GANTRY_OUTPUT"\n';
    const s = await setupTemplate(admin, p, gitRepo({ 'out.sh': script }), {
      app: 'bash',
      playbook: 'out.sh',
      runner_tag: 'linux',
    });
    const inputs = { build: { version: '2.0', evil: '$(id)' } };
    const task = await t().app.services.tasks.create(
      { id: admin.id, admin: true },
      p,
      taskCreateSchema.parse({ template_id: s.templateId }),
      { inputs },
    );
    const done = await waitForTask(admin, p, task.id, undefined, 30_000);
    const log = (await taskLog(admin, p, task.id)).join('\n');
    expect(done.status, log).toBe('success');
    expect(done.runner_id).toBeTruthy();
    expect(log).toContain(`inputs=${JSON.stringify(inputs)}`);
    expect(log).not.toMatch(/uid=\d+/);
    expect((await admin.get(`/api/project/${p}/tasks/${task.id}/result`)).json()).toEqual({
      output: { where: 'runner', got: inputs },
      inputs,
    });
  });

  it('fails a runner task whose output is too large or a link, as a local run', async () => {
    const p = await createProject(admin);
    const s = await setupTemplate(
      admin,
      p,
      gitRepo({
        'large.sh': `{ printf '{"a": "'; head -c 1048600 /dev/zero | tr '\\0' x; printf '"}'; } > "$GANTRY_OUTPUT"\n`,
        'link.sh': 'ln -s /etc/passwd "$GANTRY_OUTPUT"\n',
      }),
      { app: 'bash', playbook: 'large.sh', runner_tag: 'linux' },
    );
    const id = await runTask(admin, p, { template_id: s.templateId });
    const done = await waitForTask(admin, p, id, undefined, 30_000);
    const log = (await taskLog(admin, p, id)).join('\n');
    expect(done.status, log).toBe('error');
    expect(log).toContain('The output file is larger than 1 MiB');
    expect((await admin.get(`/api/project/${p}/tasks/${id}/result`)).json().output).toBeNull();

    const link = await admin.post(`/api/project/${p}/templates`, {
      name: 'link',
      app: 'bash',
      playbook: 'link.sh',
      repository_id: s.repositoryId,
      environment_id: s.environmentId,
      runner_tag: 'linux',
    });
    const linkId = await runTask(admin, p, { template_id: link.json().id });
    const linked = await waitForTask(admin, p, linkId, undefined, 30_000);
    const linkLog = (await taskLog(admin, p, linkId)).join('\n');
    expect(linked.status, linkLog).toBe('error');
    expect(linkLog).toContain('it is a symbolic link');
    expect(linkLog).not.toContain('root:x:0:0');
  });

  it("checks a runner's reported output again: anything but a JSON object is refused, never stored", async () => {
    const other = (await admin.post('/api/runners', { name: 'manual', tag: 'manual' })).json();
    const p = await createProject(admin);
    const s = await setupTemplate(admin, p, gitRepo({ 'a.sh': 'echo a\n' }), {
      app: 'bash',
      playbook: 'a.sh',
      runner_tag: 'manual',
    });
    const id = await runTask(admin, p, { template_id: s.templateId });
    const server = httpRunnerServer(baseUrl, other.token);
    expect((await server.poll([])).jobs.map((j) => j.task_id)).toEqual([id]);
    for (const output of ['[1]', 'not json', '"text"', 'x'.repeat(1024 * 1024 + 1)]) {
      const refused = await server.status(id, { status: 'success', output }).catch((e: unknown) => e);
      expect(refused, output.slice(0, 20)).toBeInstanceOf(RunnerHttpError);
      expect((refused as RunnerHttpError).status).toBe(400);
    }
    expect((await admin.get(`/api/project/${p}/tasks/${id}/result`)).json().output).toBeNull();
    await server.status(id, { status: 'success', output: '{"ok": 1}' });
    expect((await admin.get(`/api/project/${p}/tasks/${id}`)).json().status).toBe('success');
    expect((await admin.get(`/api/project/${p}/tasks/${id}/result`)).json()).toEqual({
      output: { ok: 1 },
      inputs: null,
    });
  });
});
