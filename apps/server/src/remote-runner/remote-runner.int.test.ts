import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { RunnerPollResponse, WsMessage } from '@gantry/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runnerTaskSandbox } from '../engine/sandbox.js';
import type { LogBatch } from '../realtime/bus.js';
import { openSealed } from '../platform/envelope.js';
import { gitRepo } from '../test/git-fixture.js';
import { createProject, engines, signedInUser, useTestApp, type Caller } from '../test/harness.js';
import { runTask, setupTemplate, taskLog, waitForTask } from '../test/tasks.js';
import { waitFor } from '../test/wait.js';
import { RunnerAgent } from './agent.js';
import { httpRunnerServer, type RunnerServer } from './server-client.js';

const CANARY = 'tok-canary-remote-4711';
const CANARY_FILE = 'runner-work-canary-0815';
const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gantry-runner-'));
const keyFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'gantry-runner-key-')), 'runner.pem');

describe.each(engines)('remote runner end to end ($name)', (engine) => {
  const t = useTestApp(engine, { GANTRY_USE_REMOTE_RUNNER: 'true', GANTRY_RUNNER_TIMEOUT_SECONDS: '5' });
  let baseUrl = '';
  let agent: RunnerAgent | undefined;
  const polls: RunnerPollResponse[] = [];
  const messages: WsMessage[] = [];
  const published: LogBatch[] = [];
  let admin: Caller;
  let runner: { id: number; token: string; private_key: string };

  beforeAll(async () => {
    await t().app.listen({ port: 0, host: '127.0.0.1' });
    const address = t().app.server.address();
    if (!address || typeof address === 'string') throw new Error('no address');
    baseUrl = `http://127.0.0.1:${address.port}`;
    t().app.services.bus.onMessage((m) => messages.push(m));
    t().app.services.bus.onLines((b) => published.push(b));
    admin = await signedInUser(t(), { admin: true });
    runner = (await admin.post('/api/runners', { name: 'e2e', tag: 'linux', max_parallel_tasks: 2 })).json();
    const http = httpRunnerServer(baseUrl, runner.token);
    // Captures every poll answer, to check what really travels on the wire.
    const capturing: RunnerServer = { ...http, poll: async (running) => { const a = await http.poll(running); polls.push(a); return a; } };
    const systemPath = process.env.PATH ?? '/usr/bin:/bin';
    fs.writeFileSync(path.join(workDir, 'canary.txt'), CANARY_FILE);
    fs.writeFileSync(keyFile, runner.private_key);
    agent = new RunnerAgent({
      server: capturing,
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

  it('runs tasks sandboxed: the work folder and the private key are out of sight, the workspace is writable', async () => {
    const p = await createProject(admin);
    const script = [
      'cat "$PEEK_WORK/canary.txt" || echo "no canary"',
      'grep -c PRIVATE "$PEEK_KEY" || echo "no key"',
      'echo mine > own.txt && cat own.txt',
      '',
    ].join('\n');
    const s = await setupTemplate(admin, p, gitRepo({ 'peek.sh': script }), { app: 'bash', playbook: 'peek.sh', runner_tag: 'linux' }, { env: JSON.stringify({ PEEK_WORK: workDir, PEEK_KEY: keyFile }) });
    const id = await runTask(admin, p, { template_id: s.templateId });
    expect((await waitForTask(admin, p, id, undefined, 30_000)).status).toBe('success');
    const log = await taskLog(admin, p, id);
    expect(log).toContain('no canary');
    expect(log).toContain('mine');
    expect(log.join('\n')).not.toContain(CANARY_FILE);
    expect(log.join('\n')).not.toContain('PRIVATE KEY');
    expect(log).toContain('no key');
  });

  it('runs a tagged bash task on the runner: logs back, secrets masked and sealed, runner_id set', async () => {
    const p = await createProject(admin);
    const repo = gitRepo({ 'hello.sh': 'echo "hello from $(hostname)"; echo "token=$API_TOKEN"\n' });
    const s = await setupTemplate(admin, p, repo, { app: 'bash', playbook: 'hello.sh', runner_tag: 'linux' }, { secrets: [{ name: 'API_TOKEN', secret: CANARY, type: 'env' }] });
    const id = await runTask(admin, p, { template_id: s.templateId });
    const task = await waitForTask(admin, p, id, undefined, 30_000);
    expect(task.status).toBe('success');
    expect(task.runner_id).toBe(runner.id);
    expect(task.commit_hash).toMatch(/^[0-9a-f]{40}$/);
    const log = await taskLog(admin, p, id);
    expect(log).toContain('token=**********');
    expect(log.join('\n')).not.toContain(CANARY);
    expect(log[0]).toBe(`Task #${id} started on a runner`);
    // The same lines went out live, as for local runs.
    const live = published.filter((b) => b.task_id === id).flatMap((b) => b.lines.map((l) => l.output));
    expect(live).toContain('token=**********');
    expect(messages.some((m) => m.type === 'update' && m.task_id === id && m.status === 'success')).toBe(true);
    // The package on the wire holds no secret in clear; the runner's key opens it.
    const job = polls.flatMap((a) => a.jobs).find((j) => j.task_id === id)!;
    expect(job).toBeDefined();
    expect(JSON.stringify(job)).not.toContain(CANARY);
    expect(JSON.stringify(job)).not.toContain('hello.sh');
    expect(openSealed(runner.private_key, job.sealed)).toContain(CANARY);
    expect((await admin.get('/api/runners')).json().find((r: { id: number }) => r.id === runner.id).touched).toBeTruthy();
  });

  it('keeps task input data on the runner too: Jinja in a survey answer is printed, the group value rendered', async () => {
    const p = await createProject(admin);
    const key = (await admin.post(`/api/project/${p}/keys`, { name: 'none', type: 'none' })).json().id;
    const inventory = 'localhost ansible_connection=local ansible_python_interpreter=/usr/bin/python3';
    const inv = (await admin.post(`/api/project/${p}/inventory`, { name: 'local', type: 'static', inventory, ssh_key_id: key })).json().id;
    const playbook = '- hosts: all\n  gather_facts: false\n  tasks:\n    - ansible.builtin.debug:\n        msg: "greeting={{ greeting }} computed={{ computed }}"\n';
    const s = await setupTemplate(
      admin,
      p,
      gitRepo({ 'site.yml': playbook }),
      { app: 'ansible', playbook: 'site.yml', inventory_id: inv, runner_tag: 'linux', survey_vars: [{ name: 'greeting', title: 'Greeting' }] },
      { json: '{"computed": "{{ 6 * 7 }}"}' },
    );
    const greeting = "{{ lookup('pipe', 'echo PWNED-$((6*7))') }}";
    const id = await runTask(admin, p, { template_id: s.templateId, environment: JSON.stringify({ greeting }) });
    const task = await waitForTask(admin, p, id, undefined, 30_000);
    const log = (await taskLog(admin, p, id)).join('\n');
    expect(task.status, log).toBe('success');
    expect(task.runner_id).toBe(runner.id);
    expect(log).toContain(`greeting=${greeting} computed=42`);
    expect(log).not.toContain('PWNED-42');
    // The job package keeps the trusted and the untrusted variables apart.
    const job = polls.flatMap((a) => a.jobs).find((j) => j.task_id === id)!;
    const sealed = JSON.parse(openSealed(runner.private_key, job.sealed)) as { trustedVars: object; untrustedVars: object };
    expect(sealed.trustedVars).toEqual({ computed: '{{ 6 * 7 }}' });
    expect(sealed.untrustedVars).toEqual({ greeting });
  });

  it('a template without the runner tag waits: no runner with an empty tag', async () => {
    const p = await createProject(admin);
    const s = await setupTemplate(admin, p, gitRepo({ 'a.sh': 'echo a\n' }), { app: 'bash', playbook: 'a.sh' });
    const id = await runTask(admin, p, { template_id: s.templateId });
    await new Promise((r) => setTimeout(r, 600));
    expect((await admin.get(`/api/project/${p}/tasks/${id}`)).json().status).toBe('waiting');
    expect((await admin.post(`/api/project/${p}/tasks/${id}/stop`, {})).statusCode).toBe(204);
  });

  it('a stop from the console reaches the runner', async () => {
    const p = await createProject(admin);
    const s = await setupTemplate(admin, p, gitRepo({ 'wait.sh': 'echo waiting; while true; do sleep 0.1; done\n' }), { app: 'bash', playbook: 'wait.sh', runner_tag: 'linux' });
    const id = await runTask(admin, p, { template_id: s.templateId });
    await waitForTask(admin, p, id, ['running'], 30_000);
    const until = Date.now() + 10_000;
    while (!(await taskLog(admin, p, id)).includes('waiting') && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    expect((await admin.post(`/api/project/${p}/tasks/${id}/stop`, {})).statusCode).toBe(204);
    const task = await waitForTask(admin, p, id, undefined, 15_000);
    expect(task.status).toBe('stopped');
    // The run reports its final status before it leaves the agent's list.
    await expect.poll(() => agent!.runningTasks, { timeout: 5_000 }).not.toContain(id);
  });

  it('keeps checkouts in its work folder, and empties them on a cache clear from the console', async () => {
    const p = await createProject(admin);
    const s = await setupTemplate(admin, p, gitRepo({ 'c.sh': 'echo cached\n' }), { app: 'bash', playbook: 'c.sh', runner_tag: 'linux' });
    const checkouts = path.join(workDir, 'checkouts');
    const entries = () => (fs.existsSync(checkouts) ? fs.readdirSync(checkouts).filter((n) => !n.startsWith('.')) : []);
    const before = entries().length;
    for (let i = 0; i < 2; i++) {
      const id = await runTask(admin, p, { template_id: s.templateId });
      expect((await waitForTask(admin, p, id, undefined, 30_000)).status).toBe('success');
      expect(await taskLog(admin, p, id)).toContain('cached');
    }
    // One entry for the two runs of the same repository.
    expect(entries()).toHaveLength(before + 1);
    expect((await admin.del(`/api/runners/${runner.id}/cache`)).statusCode).toBe(204);
    await waitFor('the runner to clear its checkouts', () => entries().length === 0, 10_000);
  });

  it('fails the tasks of a runner that stopped calling', async () => {
    const dead = (await admin.post('/api/runners', { name: 'dead', tag: 'dead' })).json();
    const p = await createProject(admin);
    const s = await setupTemplate(admin, p, gitRepo({ 'a.sh': 'echo a\n' }), { app: 'bash', playbook: 'a.sh', runner_tag: 'dead' });
    const id = await runTask(admin, p, { template_id: s.templateId });
    // It claims the job, then goes silent.
    const answer = await httpRunnerServer(baseUrl, dead.token).poll([]);
    expect(answer.jobs.map((j) => j.task_id)).toEqual([id]);
    expect((await admin.get(`/api/project/${p}/tasks/${id}`)).json()).toMatchObject({ status: 'starting', runner_id: dead.id });
    expect(await t().app.services.runnerProtocol.failSilent()).toBe(0);
    await t().db.db.updateTable('runner').set({ touched: new Date(Date.now() - 60_000).toISOString() }).where('id', '=', dead.id).execute();
    // The server's periodic check (every timeout/4) fails it.
    const task = await waitForTask(admin, p, id, undefined, 10_000);
    expect(task.status).toBe('error');
    expect((await taskLog(admin, p, id)).at(-1)).toBe(`Runner #${dead.id} stopped responding (no contact for 5 s); the task was failed.`);
    // The runner hears about it when it comes back.
    expect((await httpRunnerServer(baseUrl, dead.token).poll([id])).control).toEqual([{ task_id: id, action: 'stop' }]);
  });
});
