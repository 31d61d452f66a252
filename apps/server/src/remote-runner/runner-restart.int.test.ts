import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FORCE_STOPPED, NOT_HELD_FAILED } from '../modules/runners/runner-protocol.service.js';
import { gitRepo } from '../test/git-fixture.js';
import { engines, type Caller } from '../test/harness.js';
import { assertServerBuilt, SERVER_BIN, SERVER_NODE, signInNode, sleep, startNode, stopNode } from '../test/server-process.js';
import { setupTemplate, taskLog } from '../test/tasks.js';
import { waitFor } from '../test/wait.js';

// A real server and real runner processes (the built server: `npm run build` first): a runner
// killed with -9 and started again within its timeout no longer orphans its task, and a stop of a
// task whose runner is gone ends it.

/** Says it started, then runs (bounded, in case a sandbox ever lets it outlive its runner). */
const LONG = 'echo long-started\nfor i in $(seq 600); do sleep 0.1; done\n';
const secret = randomBytes(32).toString('base64');
const cleanup: Array<() => Promise<void>> = [];

afterAll(async () => {
  for (const c of cleanup.reverse()) await c().catch(() => undefined);
});

/** `gantry runner start` with the runner's credentials; resolves once it polls. */
async function startRunner(serverUrl: string, token: string, keyFile: string, workDir: string): Promise<ChildProcess> {
  const proc = spawn(SERVER_NODE, [SERVER_BIN, 'runner', 'start'], {
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      GANTRY_RUNNER_SERVER_URL: serverUrl,
      GANTRY_RUNNER_TOKEN: token,
      GANTRY_RUNNER_PRIVATE_KEY_FILE: keyFile,
      GANTRY_RUNNER_WORK_DIR: workDir,
      GANTRY_RUNNER_POLL_MS: '200',
      // bwrap's --die-with-parent: the task dies with a killed runner, as on a real machine.
      GANTRY_TASK_SANDBOX: 'bwrap',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  proc.stdout!.on('data', (b: Buffer) => output.push(b.toString()));
  proc.stderr!.on('data', (b: Buffer) => output.push(b.toString()));
  cleanup.push(() => kill9(proc));
  await waitFor(`the runner to start: ${output.join('')}`, async () => {
    if (proc.exitCode !== null) throw new Error(`runner exited: ${output.join('')}`);
    return output.join('').includes('polling');
  });
  return proc;
}

async function kill9(proc: ChildProcess): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return;
  const exited = new Promise((resolve) => proc.once('exit', resolve));
  proc.kill('SIGKILL');
  await exited;
}

describe.each(engines.map((e) => [e.name, e] as const))('a remote runner restarted or gone (%s)', (_name, engine) => {
  it("kill -9 and a new runner process within the timeout: the task fails with a line and its slot runs the next task; a force stop of a gone runner's task ends it", async () => {
    assertServerBuilt();
    const tdb = await engine.create();
    cleanup.push(() => tdb.drop());
    // A timeout far beyond the test: nothing here is the silent-runner check's doing.
    const node = await startNode('runner-restart', tdb, secret, { GANTRY_USE_REMOTE_RUNNER: 'true', GANTRY_RUNNER_TIMEOUT_SECONDS: '300' }, tdb.dataDir);
    cleanup.push(() => stopNode(node, 'SIGKILL'));
    const c: Caller = await signInNode(node.base);
    const runner = (await c.post('/api/runners', { name: 'restarts', tag: 'r', max_parallel_tasks: 1 })).json() as { id: number; token: string; private_key: string };
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gantry-runner-restart-'));
    cleanup.push(async () => fs.rmSync(dir, { recursive: true, force: true }));
    const keyFile = path.join(dir, 'runner.pem');
    fs.writeFileSync(keyFile, runner.private_key, { mode: 0o600 });
    const workDir = path.join(dir, 'work');

    const p = ((await c.post('/api/projects', { name: 'runner restart' })).json() as { id: number }).id;
    const long = (await setupTemplate(c, p, gitRepo({ 'run.sh': LONG }), { app: 'bash', playbook: 'run.sh', runner_tag: 'r' })).templateId;
    const short = (await setupTemplate(c, p, gitRepo({ 'run.sh': 'echo short-done\n' }), { app: 'bash', playbook: 'run.sh', runner_tag: 'r' })).templateId;
    const post = async (templateId: number) => ((await c.post(`/api/project/${p}/tasks`, { template_id: templateId })).json() as { id: number }).id;
    const task = async (id: number) => (await c.get(`/api/project/${p}/tasks/${id}`)).json() as { status: string; runner_id: number | null };

    const first = await startRunner(node.base, runner.token, keyFile, workDir);
    const orphan = await post(long);
    await waitFor('the long task to start on the runner', async () => (await taskLog(c, p, orphan)).includes('long-started'));
    const queued = await post(short);
    await sleep(600);
    // The runner's one slot is taken.
    expect((await task(queued)).status).toBe('waiting');

    await kill9(first);
    const second = await startRunner(node.base, runner.token, keyFile, workDir);
    // The fresh process reports no task: the lost one fails at its first poll, with the line.
    await waitFor('the orphaned task to fail', async () => (await task(orphan)).status === 'error');
    expect((await taskLog(c, p, orphan)).at(-1)).toBe(NOT_HELD_FAILED);
    // Its slot is free again: the queued task runs on the new process.
    await waitFor('the queued task to succeed', async () => (await task(queued)).status === 'success');
    expect(await task(queued)).toMatchObject({ runner_id: runner.id });
    expect(await taskLog(c, p, queued)).toContain('short-done');

    // The runner goes for good while it runs a task: a force stop does not wait for it.
    const stranded = await post(long);
    await waitFor('the second long task to start', async () => (await taskLog(c, p, stranded)).includes('long-started'));
    await kill9(second);
    expect((await c.post(`/api/project/${p}/tasks/${stranded}/stop`, { force: true })).statusCode).toBe(204);
    expect((await task(stranded)).status).toBe('stopped');
    expect((await taskLog(c, p, stranded)).at(-1)).toBe(FORCE_STOPPED);
  }, 60_000);
});
