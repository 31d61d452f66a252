import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { insertReturningId } from '../db/portable.js';
import { gitRepo } from '../test/git-fixture.js';
import { createProject, engines, signedInUser, useTestApp, type TestContext } from '../test/harness.js';
import { runTask, setupTemplate, waitForTask } from '../test/tasks.js';
import { OrphanSweep } from './orphan-sweep.js';
import { waitFor } from '../test/wait.js';

// Tasks get a private /tmp: the flag they wait for lives where their read-only view of the system shows it.
const flagDirs: string[] = [];
const flagFile = () => {
  flagDirs.push(fs.mkdtempSync(path.join('/var/tmp', 'gantry-flag-')));
  fs.chmodSync(flagDirs.at(-1)!, 0o755);
  return path.join(flagDirs.at(-1)!, 'go');
};
afterAll(() => {
  for (const d of flagDirs) fs.rmSync(d, { recursive: true, force: true });
});

/** The sweep as app.ts wires it: the dispatcher's set of live runs is the truth. */
const sweepOf = (ctx: TestContext) => new OrphanSweep(ctx.app.services.tasks, (id) => ctx.app.services.dispatcher.isRunningHere(id));
const statusOf = async (ctx: TestContext, id: number) => (await ctx.db.db.selectFrom('task').select('status').where('id', '=', id).executeTakeFirstOrThrow()).status;
const logOf = async (ctx: TestContext, id: number) => ctx.db.db.selectFrom('task_output').select(['seq', 'output']).where('task_id', '=', id).orderBy('seq').execute();
describe.each(engines)('orphan sweep ($name)', (engine) => {
  const t = useTestApp(engine);

  it("fails this node's active tasks no live run holds (after two sweeps), and leaves live runs and other nodes' tasks alone", async () => {
    const ctx = t();
    const admin = await signedInUser(ctx, { admin: true });
    const p = await createProject(admin);
    const flag = flagFile();
    const s = await setupTemplate(admin, p, gitRepo({ 'wait.sh': 'echo up; while [ ! -f "$WAIT_FLAG" ]; do sleep 0.05; done\n' }), { app: 'bash', playbook: 'wait.sh' }, { env: JSON.stringify({ WAIT_FLAG: flag }) });
    const live = await runTask(admin, p, { template_id: s.templateId });
    await waitForTask(admin, p, live, ['running']);
    const nodeId = fs.readFileSync(path.join(ctx.config.dataDir, 'node.id'), 'utf8').trim();
    const base = { project_id: p, template_id: s.templateId, message: '', commit_message: '', environment: '{}', params: '{}', created: new Date().toISOString() };
    const orphan = await insertReturningId(ctx.db.db, 'task', { ...base, status: 'running', node_id: nodeId });
    const stopping = await insertReturningId(ctx.db.db, 'task', { ...base, status: 'stopping', node_id: nodeId });
    const otherNode = await insertReturningId(ctx.db.db, 'task', { ...base, status: 'running', node_id: 'another-node' });
    // A remote runner's task has no node.
    const runnerTask = await insertReturningId(ctx.db.db, 'task', { ...base, status: 'running', node_id: null });

    const sweep = sweepOf(ctx);
    // The first sweep only suspects: a task claimed a moment ago may not be in the live set yet.
    expect(await sweep.sweep()).toBe(0);
    expect(await statusOf(ctx, orphan)).toBe('running');
    expect(await sweep.sweep()).toBe(2);
    expect(await statusOf(ctx, orphan)).toBe('error');
    expect(await statusOf(ctx, stopping)).toBe('error');
    expect((await logOf(ctx, orphan)).map((l) => l.output)).toEqual([expect.stringMatching(/This server holds no run of this task any more/)]);
    expect(await statusOf(ctx, otherNode)).toBe('running');
    expect(await statusOf(ctx, runnerTask)).toBe('running');
    expect(await statusOf(ctx, live)).toBe('running');
    expect(await sweep.sweep()).toBe(0);

    fs.writeFileSync(flag, '');
    expect((await waitForTask(admin, p, live)).status).toBe('success');
    // Rows a test made up are not left looking active.
    await ctx.db.db.updateTable('task').set({ status: 'error' }).where('id', 'in', [otherNode, runnerTask]).execute();
  });
});

const sqlite = engines.find((e) => e.name === 'sqlite')!;

describe('a full SQLite database under a running task', () => {
  const t = useTestApp(sqlite);

  const start = async (ctx: TestContext, after: number) => {
    const admin = await signedInUser(ctx, { admin: true });
    const p = await createProject(admin);
    const flag = flagFile();
    const script = `echo "before"; while [ ! -f "$WAIT_FLAG" ]; do sleep 0.05; done\nfor i in $(seq 1 ${after}); do echo "after $i ${'x'.repeat(150)}"; done\n`;
    const s = await setupTemplate(admin, p, gitRepo({ 'run.sh': script }), { app: 'bash', playbook: 'run.sh' }, { env: JSON.stringify({ WAIT_FLAG: flag }) });
    const id = await runTask(admin, p, { template_id: s.templateId });
    await waitFor('the first line', async () => (await logOf(ctx, id)).some((l) => l.output === 'before'));
    return { admin, p, id, flag };
  };

  it('keeps the lines the full database refused, stores them once there is room, and ends the task as error with a line saying so', async () => {
    const ctx = t();
    const raw = ctx.db.sqlite!;
    const { admin, p, id, flag } = await start(ctx, 3000);
    // Fills the database for real: it may not grow past the pages it has now.
    raw.pragma(`max_page_count = ${raw.pragma('page_count', { simple: true }) as number}`);
    try {
      fs.writeFileSync(flag, '');
      await new Promise((r) => setTimeout(r, 1500));
      // The run waits for room rather than ending with lines lost or leaving a final status unwritten.
      expect(await statusOf(ctx, id)).toBe('running');
      expect(ctx.app.services.dispatcher.isRunningHere(id)).toBe(true);
      const sweep = sweepOf(ctx);
      await sweep.sweep();
      expect(await sweep.sweep()).toBe(0);
      expect((await logOf(ctx, id)).some((l) => l.output.startsWith('after 3000 '))).toBe(false);
    } finally {
      raw.pragma('max_page_count = 1073741823');
    }
    expect((await waitForTask(admin, p, id, undefined, 15_000)).status).toBe('error');
    const log = await logOf(ctx, id);
    expect(log.map((l) => l.seq)).toEqual(log.map((_, i) => i + 1));
    const after = log.filter((l) => l.output.startsWith('after ')).map((l) => Number(l.output.split(' ')[1]));
    expect(after).toEqual(Array.from({ length: 3000 }, (_, i) => i + 1));
    expect(log.map((l) => l.output).join('\n')).toMatch(/disk was full: this task's log could not be stored for about \d+ s \(no line was lost\); the task is marked as failed/);
    expect(log.at(-1)!.output).toBe(`Task #${id} finished: error`);
  });

  it('retries the final status write until it lands; the task is never left running', async () => {
    const ctx = t();
    const raw = ctx.db.sqlite!;
    const { admin, p, id, flag } = await start(ctx, 3);
    // A fault on the final write only: every final status of this task is refused.
    raw.exec(`CREATE TRIGGER refuse_final BEFORE UPDATE OF status ON task WHEN NEW.id = ${id} AND NEW.status IN ('success', 'error', 'stopped') BEGIN SELECT RAISE(ABORT, 'injected fault'); END`);
    try {
      fs.writeFileSync(flag, '');
      await waitFor('the finished line', async () => (await logOf(ctx, id)).some((l) => l.output === `Task #${id} finished: success`));
      await new Promise((r) => setTimeout(r, 800));
      expect(await statusOf(ctx, id)).toBe('running');
      expect(ctx.app.services.dispatcher.isRunningHere(id)).toBe(true);
    } finally {
      raw.exec('DROP TRIGGER refuse_final');
    }
    expect((await waitForTask(admin, p, id, undefined, 15_000)).status).toBe('success');
    await waitFor('the line about the final status', async () => (await logOf(ctx, id)).some((l) => /final status could not be stored for about \d+ s/.test(l.output)));
    const log = await logOf(ctx, id);
    expect(log.map((l) => l.seq)).toEqual(log.map((_, i) => i + 1));
  });
});
