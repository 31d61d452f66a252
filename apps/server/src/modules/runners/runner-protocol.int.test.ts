import { beforeAll, describe, expect, it } from 'vitest';
import { RemoteLog } from '../../remote-runner/remote-log.js';
import { httpRunnerServer, RunnerHttpError, type RunnerServer } from '../../remote-runner/server-client.js';
import { gitRepo } from '../../test/git-fixture.js';
import { createProject, engines, signedInUser, useTestApp, type Caller } from '../../test/harness.js';
import { runTask, setupTemplate, taskLog } from '../../test/tasks.js';

const FINISHED = { error: 'The task has already finished', code: 'task_finished' };

describe.each(engines)('runner protocol: reports for finished tasks ($name)', (engine) => {
  const t = useTestApp(engine, { GANTRY_USE_REMOTE_RUNNER: 'true' });
  let admin: Caller;
  let baseUrl = '';

  beforeAll(async () => {
    await t().app.listen({ port: 0, host: '127.0.0.1' });
    const address = t().app.server.address();
    if (!address || typeof address === 'string') throw new Error('no address');
    baseUrl = `http://127.0.0.1:${address.port}`;
    admin = await signedInUser(t(), { admin: true });
  });

  /** A task claimed by a fresh runner (no agent: the test speaks the protocol itself). */
  async function claimedTask() {
    const tag = `t${Math.random().toString(36).slice(2, 8)}`;
    const runner = (await admin.post('/api/runners', { name: tag, tag })).json();
    const p = await createProject(admin);
    const s = await setupTemplate(admin, p, gitRepo({ 'a.sh': 'echo a\n' }), {
      app: 'bash',
      playbook: 'a.sh',
      runner_tag: tag,
    });
    const id = await runTask(admin, p, { template_id: s.templateId });
    const server = httpRunnerServer(baseUrl, runner.token);
    expect((await server.poll([])).jobs.map((j) => j.task_id)).toEqual([id]);
    const post = (what: 'log' | 'status', payload: object) =>
      t().app.inject({
        method: 'POST',
        url: `/api/internal/runners/tasks/${id}/${what}`,
        headers: { authorization: `Bearer ${runner.token}` },
        payload,
      });
    const line = (output: string, seq: number) => ({ lines: [{ seq, time: new Date().toISOString(), output }] });
    return { p, id, server, post, line };
  }

  const task = async (p: number, id: number) => (await admin.get(`/api/project/${p}/tasks/${id}`)).json();
  const finishedEvents = async (p: number, id: number) =>
    (await admin.get(`/api/project/${p}/events/last`))
      .json()
      .filter((e: { description: string }) => e.description.startsWith(`Task #${id} finished`)).length;

  it('answers 409 to log lines and status reports once the task is final, storing nothing', async () => {
    const { p, id, post, line } = await claimedTask();
    expect((await post('status', { status: 'running' })).statusCode).toBe(204);
    expect((await post('log', line('working', 1))).statusCode).toBe(204);
    expect((await post('status', { status: 'success' })).statusCode).toBe(204);
    expect(await taskLog(admin, p, id)).toEqual(['working']);
    const end = (await task(p, id)).end;

    const late = await post('log', line('appended after the end', 2));
    expect([late.statusCode, late.json()]).toEqual([409, FINISHED]);
    for (const status of ['error', 'running', 'success']) {
      const r = await post('status', { status, commit_hash: 'abcdef12' });
      expect([r.statusCode, r.json()]).toEqual([409, FINISHED]);
    }
    expect(await taskLog(admin, p, id)).toEqual(['working']);
    expect(await task(p, id)).toMatchObject({ status: 'success', end, commit_hash: null });
    expect(await finishedEvents(p, id)).toBe(1);
  });

  it('takes the last lines and one final report of a task the console rejected', async () => {
    const { p, id, post, line } = await claimedTask();
    expect((await post('status', { status: 'running' })).statusCode).toBe(204);
    expect((await post('status', { status: 'waiting_confirmation' })).statusCode).toBe(204);
    expect((await admin.post(`/api/project/${p}/tasks/${id}/reject`)).statusCode).toBe(204);
    // The run winds down after the rejection: its last lines and its report are taken, once.
    expect((await post('log', line('plan rejected', 1))).statusCode).toBe(204);
    expect((await post('status', { status: 'rejected' })).statusCode).toBe(204);
    expect(await finishedEvents(p, id)).toBe(1);
    expect((await post('log', line('late', 2))).statusCode).toBe(409);
    expect((await post('status', { status: 'rejected' })).statusCode).toBe(409);
    expect(await taskLog(admin, p, id)).toEqual(['plan rejected']);
    expect(await finishedEvents(p, id)).toBe(1);
  });

  it("the runner's log stops sending for a task the server ended, without retrying", async () => {
    const { p, id, server, post } = await claimedTask();
    expect((await post('status', { status: 'error' })).statusCode).toBe(204);
    const calls: number[] = [];
    const counting: RunnerServer = { ...server, log: (taskId, body) => (calls.push(taskId), server.log(taskId, body)) };
    let ended = 0;
    const log = new RemoteLog(counting, id, undefined, () => ended++);
    log.write('one');
    await log.sync();
    log.write('two');
    await log.sync();
    expect(calls).toEqual([id]);
    expect(ended).toBe(1);
    expect(await taskLog(admin, p, id)).toEqual([]);
    await expect(server.status(id, { status: 'success' })).rejects.toMatchObject({ status: 409 });
    await expect(server.status(id, { status: 'success' })).rejects.toBeInstanceOf(RunnerHttpError);
  });
});
