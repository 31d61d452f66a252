import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Dispatcher } from '../../engine/dispatcher.js';
import { EventBus } from '../../realtime/bus.js';
import { gitRepo } from '../../test/git-fixture.js';
import { createProject, engines, signedInUser, useTestApp, type Caller } from '../../test/harness.js';
import { runTask, setupTemplate } from '../../test/tasks.js';
import { RunnersRepository } from '../runners/runners.repository.js';
import { TaskOutputRepository } from './task-output.repository.js';
import { TasksRepository } from './tasks.repository.js';

/**
 * The queue's order across projects, on the real SQL of each engine. The app runs in remote-runner
 * mode so its own dispatcher claims nothing: the tasks posted here wait for the dispatchers (or
 * the runner query) each test drives itself.
 */
describe.each(engines)('queue fairness ($name)', (engine) => {
  const t = useTestApp(engine, { GANTRY_USE_REMOTE_RUNNER: '1' });
  let admin: Caller;
  let repo: TasksRepository;
  const repoPath = gitRepo({ 'run.sh': 'true\n' });
  const dispatchers: Dispatcher[] = [];
  beforeAll(async () => {
    admin = await signedInUser(t(), { admin: true });
    repo = new TasksRepository(t().db.db, new TaskOutputRepository(t().db), t().db.engine);
  });
  afterAll(() => dispatchers.forEach((d) => d.close()));

  /** A new project with a bash template (tagged for remote runners when `tag` is given). */
  async function project(tag?: string): Promise<(count: number) => Promise<number[]>> {
    const p = await createProject(admin);
    const { templateId } = await setupTemplate(admin, p, repoPath, {
      playbook: 'run.sh',
      ...(tag ? { runner_tag: tag } : {}),
    });
    return async (count) => {
      const ids: number[] = [];
      for (let i = 0; i < count; i++) ids.push(await runTask(admin, p, { template_id: templateId }));
      return ids;
    };
  }

  /** A node of `slots` slots whose runs end at once (success); `started` records what it started, in order. */
  function node(name: string, slots: number, started: number[]): Dispatcher {
    const d = new Dispatcher(repo, new EventBus(), { now: () => new Date() }, name, slots, async (id) => {
      started.push(id);
      await new Promise((r) => setImmediate(r));
      await repo.transition(id, ['starting'], 'success', { end: new Date().toISOString() });
    });
    dispatchers.push(d);
    return d;
  }

  async function until(done: () => boolean): Promise<void> {
    for (const end = Date.now() + 15_000; !done();) {
      if (Date.now() > end) throw new Error('the queue did not drain');
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  it("starts a second project's first task second, behind one of the 20 queued before it, and keeps each project FIFO", async () => {
    const p1 = await (await project())(20);
    const p2 = await (await project())(1);
    const started: number[] = [];
    const d = node('fair-1', 1, started);
    d.kick();
    await until(() => started.length === 21);
    d.close();
    expect(started).toEqual([p1[0], p2[0], ...p1.slice(1)]);
  });

  it('interleaves projects never served, each in id order: one turn per project, then the next turn', async () => {
    const a = await (await project())(3);
    const b = await (await project())(2);
    const c = await (await project())(1);
    const order = (await repo.waiting(100)).map((w) => w.id);
    expect(order).toEqual([a[0], b[0], c[0], a[1], b[1], a[2]]);
    // The same order for any limit: the first `limit` of it.
    expect((await repo.waiting(2)).map((w) => w.id)).toEqual([a[0], b[0]]);
    const started: number[] = [];
    const d = node('fair-2', 2, started);
    d.kick();
    await until(() => started.length === 6);
    d.close();
    expect(started.slice(0, 3)).toEqual([a[0], b[0], c[0]]);
  });

  it("two nodes on one database: each task runs once, and the other project's first task is among the first three started", async () => {
    const p1 = await (await project())(8);
    const p2 = await (await project())(2);
    const started: number[] = [];
    const nodes = [node('fair-a', 1, started), node('fair-b', 1, started)];
    nodes.forEach((n) => n.kick());
    await until(() => started.length === 10);
    nodes.forEach((n) => n.close());
    expect([...started].sort((x, y) => x - y)).toEqual([...p1, ...p2].sort((x, y) => x - y));
    // Two nodes start P1's first two tasks in either order; P2's first is among the first three.
    expect(started.indexOf(p2[0])).toBeLessThanOrEqual(2);
  });

  it('remote runners take turns the same way, among the tasks their tag allows', async () => {
    const p1 = await (await project())(3);
    const gpu = await (await project('gpu'))(2);
    const p2 = await (await project())(1);
    const runners = new RunnersRepository(t().db.db);
    expect((await runners.claimable({ project_id: null, tag: '' }, 100)).map((c) => c.id)).toEqual([
      p1[0],
      p2[0],
      p1[1],
      p1[2],
    ]);
    expect((await runners.claimable({ project_id: null, tag: 'gpu' }, 100)).map((c) => c.id)).toEqual(gpu);
    const own = await runners.claimable({ project_id: (await repo.findById(p2[0]))!.project_id, tag: '' }, 100);
    expect(own.map((c) => c.id)).toEqual(p2);
    // Leave nothing waiting for the next engine's block (each has its own database, but be tidy).
    for (const id of [...p1, ...gpu, ...p2]) await repo.transition(id, ['waiting'], 'stopped');
  });
});
