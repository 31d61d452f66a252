import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { RunnerAgent } from '../../remote-runner/agent.js';
import { httpRunnerServer, RunnerHttpError, type RunnerServer } from '../../remote-runner/server-client.js';
import { runnerTaskSandbox } from '../../engine/sandbox.js';
import { gitRepo } from '../../test/git-fixture.js';
import { createProject, engines, signedInUser, useTestApp, type Caller } from '../../test/harness.js';
import { runTask, setupTemplate, taskLog, waitForTask } from '../../test/tasks.js';
import { FORCE_STOPPED, NOT_HELD_FAILED, NOT_HELD_STOPPED, RUNNER_DELETED } from './runner-protocol.service.js';

// The server's side of "a runner never orphans a task": what a runner's poll leaves out is ended,
// a stop no runner will answer ends the task, log batches sent twice are stored once, and the
// runner's final report is retried until it lands. The test speaks the protocol itself.

describe.each(engines)('runner protocol: tasks a runner no longer runs ($name)', (engine) => {
  const t = useTestApp(engine, { GANTRY_USE_REMOTE_RUNNER: 'true', GANTRY_RUNNER_TIMEOUT_SECONDS: '60' });
  let admin: Caller;
  let baseUrl = '';

  beforeAll(async () => {
    await t().app.listen({ port: 0, host: '127.0.0.1' });
    const address = t().app.server.address();
    if (!address || typeof address === 'string') throw new Error('no address');
    baseUrl = `http://127.0.0.1:${address.port}`;
    admin = await signedInUser(t(), { admin: true });
  });

  /** A runner of its own tag (one slot unless told), a project, and a template for it. */
  async function setup(max_parallel_tasks = 1, script = 'echo a\n') {
    const tag = `t${Math.random().toString(36).slice(2, 8)}`;
    const runner = (await admin.post('/api/runners', { name: tag, tag, max_parallel_tasks })).json() as { id: number; token: string; private_key: string };
    const p = await createProject(admin);
    const s = await setupTemplate(admin, p, gitRepo({ 'a.sh': script }), { app: 'bash', playbook: 'a.sh', runner_tag: tag });
    const server = httpRunnerServer(baseUrl, runner.token);
    const post = (taskId: number, lines: Array<{ seq?: number; output: string }>, token = runner.token) =>
      t().app.inject({
        method: 'POST',
        url: `/api/internal/runners/tasks/${taskId}/log`,
        headers: { authorization: `Bearer ${token}` },
        payload: { lines: lines.map((l) => ({ ...l, time: new Date().toISOString() })) },
      });
    return { runner, p, tpl: s.templateId, server, post, run: () => runTask(admin, p, { template_id: s.templateId }) };
  }

  const row = (id: number) => t().db.db.selectFrom('task').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  /** As if the claim were older than the grace that protects an answer still on its way. */
  const ageClaim = (id: number) =>
    t()
      .db.db.updateTable('task')
      .set({ start: new Date(Date.now() - 60_000).toISOString() })
      .where('id', '=', id)
      .execute();
  const finishedEvents = async (p: number, id: number) =>
    (await admin.get(`/api/project/${p}/events/last`)).json().filter((e: { description: string }) => e.description === `Task #${id} finished: error`).length;

  it('stores a log batch sent twice (one after the other, or at once) once; lines without seq go after the last', async () => {
    const { p, server, post, run } = await setup();
    const id = await run();
    expect((await server.poll([])).jobs.map((j) => j.task_id)).toEqual([id]);
    const batch = [1, 2, 3].map((seq) => ({ seq, output: `line ${seq}` }));
    expect((await post(id, batch)).statusCode).toBe(204);
    // The answer was lost: the runner sends the batch again, with the next lines.
    expect((await post(id, [...batch, { seq: 4, output: 'line 4' }])).statusCode).toBe(204);
    // Copies sent at once (retries racing a slow answer): each line is still stored once.
    const big = Array.from({ length: 600 }, (_, i) => ({ seq: i + 5, output: `line ${i + 5}` }));
    const answers = await Promise.all(Array.from({ length: 6 }, () => post(id, big)));
    expect(answers.map((a) => a.statusCode)).toEqual(Array(6).fill(204));
    expect((await post(id, [{ output: 'unnumbered' }])).statusCode).toBe(204);
    const stored = await t().db.db.selectFrom('task_output').select(['seq', 'output']).where('task_id', '=', id).orderBy('seq').execute();
    expect(stored).toEqual([...Array.from({ length: 604 }, (_, i) => ({ seq: i + 1, output: `line ${i + 1}` })), { seq: 605, output: 'unnumbered' }]);
    // Only the runner that claimed the task reports on it.
    const other = await setup();
    expect((await post(id, [{ seq: 999, output: 'not mine' }], other.runner.token)).statusCode).toBe(404);
    expect((await taskLog(admin, p, id)).at(-1)).toBe('unnumbered');
  });

  it("fails a task the runner's poll leaves out (after the grace), with a line, and frees its slot for the same poll", async () => {
    const { p, server, run } = await setup(1);
    const first = await run();
    expect((await server.poll([])).jobs.map((j) => j.task_id)).toEqual([first]);
    const second = await run();
    // Just claimed: its answer may still be on the way; and the one slot is taken.
    expect(await server.poll([])).toMatchObject({ jobs: [] });
    expect((await row(first)).status).toBe('starting');
    await ageClaim(first);
    // A fresh runner process reports nothing: the task it lost fails, and the slot takes the next one.
    const answer = await server.poll([]);
    expect(answer.jobs.map((j) => j.task_id)).toEqual([second]);
    expect(await row(first)).toMatchObject({ status: 'error' });
    expect((await taskLog(admin, p, first)).at(-1)).toBe(NOT_HELD_FAILED);
    expect(await finishedEvents(p, first)).toBe(1);
    // Reported, it is left alone, however old its claim.
    await ageClaim(second);
    expect((await server.poll([second])).control).toEqual([]);
    expect((await row(second)).status).toBe('starting');
  });

  it('ends as stopped a stopping task the runner no longer runs', async () => {
    const { p, server, run } = await setup();
    const id = await run();
    await server.poll([]);
    await server.status(id, { status: 'running' });
    expect((await admin.post(`/api/project/${p}/tasks/${id}/stop`, {})).statusCode).toBe(204);
    // The runner holds it: it is told to stop, and the task waits for its report.
    await ageClaim(id);
    expect((await server.poll([id])).control).toEqual([{ task_id: id, action: 'stop' }]);
    expect((await row(id)).status).toBe('stopping');
    // It restarted meanwhile (or the server did): the stop is done.
    await server.poll([]);
    expect((await row(id)).status).toBe('stopped');
    expect((await taskLog(admin, p, id)).at(-1)).toBe(NOT_HELD_STOPPED);
  });

  it('a force stop ends the task at once; the runner, if it comes back with it, is told to kill it', async () => {
    const { p, server, run } = await setup();
    const id = await run();
    await server.poll([]);
    await server.status(id, { status: 'running' });
    expect((await admin.post(`/api/project/${p}/tasks/${id}/stop`, { force: true })).statusCode).toBe(204);
    expect(await row(id)).toMatchObject({ status: 'stopped', stop_force: 1 });
    expect((await taskLog(admin, p, id)).at(-1)).toBe(FORCE_STOPPED);
    expect((await server.poll([id])).control).toEqual([{ task_id: id, action: 'kill' }]);
    // Its slot counts while the runner still runs it.
    const next = await run();
    expect((await server.poll([id])).jobs).toEqual([]);
    expect((await server.poll([])).jobs.map((j) => j.task_id)).toEqual([next]);
  });

  it('a stop of a task whose runner was deleted ends it at once', async () => {
    const { runner, p, server, run } = await setup();
    const id = await run();
    await server.poll([]);
    expect((await admin.del(`/api/runners/${runner.id}`)).statusCode).toBe(204);
    expect((await admin.post(`/api/project/${p}/tasks/${id}/stop`, {})).statusCode).toBe(204);
    expect((await row(id)).status).toBe('stopped');
    expect((await taskLog(admin, p, id)).at(-1)).toBe(RUNNER_DELETED);
  });

  it('a runner silent past the timeout: its stopping task is stopped, its running one failed', async () => {
    const { runner, p, server, run } = await setup(2);
    const stopping = await run();
    const running = await run();
    await server.poll([]);
    expect((await admin.post(`/api/project/${p}/tasks/${stopping}/stop`, {})).statusCode).toBe(204);
    await t().db.db.updateTable('runner').set({ touched: new Date(Date.now() - 120_000).toISOString() }).where('id', '=', runner.id).execute();
    expect(await t().app.services.runnerProtocol.failSilent()).toBe(2);
    expect((await row(stopping)).status).toBe('stopped');
    expect((await taskLog(admin, p, stopping)).at(-1)).toBe(`Runner #${runner.id} stopped responding (no contact for 60 s); the task was stopped.`);
    expect((await row(running)).status).toBe('error');
    expect((await taskLog(admin, p, running)).at(-1)).toBe(`Runner #${runner.id} stopped responding (no contact for 60 s); the task was failed.`);
  });

  it("retries the run's final report until the server takes it (past the tries of a report during the run)", async () => {
    const { runner, p, server, run } = await setup(1, 'echo done\n');
    let refused = 0;
    // The server answers 503 to the first eight final reports (its database is away, say).
    const flaky: RunnerServer = {
      ...server,
      status: async (taskId, body) => {
        if (body.status === 'success' && refused < 8) {
          refused++;
          throw new RunnerHttpError(503, 'database unavailable');
        }
        return server.status(taskId, body);
      },
    };
    const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gantry-runner-'));
    const systemPath = process.env.PATH ?? '/usr/bin:/bin';
    const agent = new RunnerAgent({
      server: flaky,
      privateKey: runner.private_key,
      workDir,
      pollMs: 100,
      systemPath,
      sandbox: runnerTaskSandbox({ taskSandbox: 'auto', workDir, privateKeyFile: path.join(workDir, 'none.pem'), systemPath }),
      log: () => undefined,
      reportBackoff: { firstMs: 10, maxMs: 40 },
    });
    agent.start();
    try {
      const id = await run();
      expect((await waitForTask(admin, p, id, undefined, 20_000)).status).toBe('success');
      expect(refused).toBe(8);
      expect(await taskLog(admin, p, id)).toContain('done');
    } finally {
      await agent.stop();
      fs.rmSync(workDir, { recursive: true, force: true });
    }
  });
});
