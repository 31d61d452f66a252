import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, type Db } from '../../db/db.js';
import type { LogLine } from '../../engine/ports.js';
import { gitRepo } from '../../test/git-fixture.js';
import { createProject, engines, signedInUser, useTestApp } from '../../test/harness.js';
import type { TestDatabase } from '../../test/engines.js';
import { assertServerBuilt, signInNode, sleep, startNode, stopNode, type ServerNode } from '../../test/server-process.js';
import { runTask, setupTemplate, waitForTask } from '../../test/tasks.js';
import { TaskOutputRepository } from '../tasks/task-output.repository.js';
import { NodesRepository } from './nodes.repository.js';

const lines = (taskId: number, from: number, count: number): LogLine[] =>
  Array.from({ length: count }, (_, i) => ({ task_id: taskId, seq: from + i, time: '2026-01-01T00:00:00.000Z', output: `line ${from + i}` }));

describe.each(engines.map((e) => [e.name, e] as const))('a run’s appends are refused once its task is not its node’s (%s)', (engine, factory) => {
  const t = useTestApp(factory);
  let repo: TaskOutputRepository;
  let ids: [number, number];
  const setTask = (id: number, status: string, node: string | null) => t().db.db.updateTable('task').set({ status, node_id: node }).where('id', '=', id).execute();
  const seqs = async (id: number) => (await t().db.db.selectFrom('task_output').select('seq').where('task_id', '=', id).orderBy('seq').execute()).map((r) => r.seq);

  beforeAll(async () => {
    const admin = await signedInUser(t(), { admin: true });
    const projectId = await createProject(admin);
    const { templateId } = await setupTemplate(admin, projectId, gitRepo({ 'run.sh': 'true\n' }), { app: 'bash', playbook: 'run.sh' });
    const made: number[] = [];
    for (let i = 0; i < 2; i++) {
      const id = await runTask(admin, projectId, { template_id: templateId });
      await waitForTask(admin, projectId, id);
      await t().db.db.deleteFrom('task_output').where('task_id', '=', id).execute();
      made.push(id);
    }
    ids = made as [number, number];
    repo = new TaskOutputRepository(t().db);
  });

  it('stores while the task is live and the node’s, refuses (storing nothing) otherwise', async () => {
    const [id, other] = ids;
    await setTask(id, 'running', 'n1');
    await setTask(other, 'running', 'n1');
    expect(await repo.appendOwned(lines(id, 1, 3), 'n1')).toBe(true);
    expect(await repo.appendOwned(lines(id, 4, 1), 'n2')).toBe(false);
    // A batch with one task that is not the node's any more: none of it.
    await setTask(other, 'error', 'n1');
    expect(await repo.appendOwned([...lines(id, 4, 1), ...lines(other, 1, 1)], 'n1')).toBe(false);
    // Rejected while it waited: the run still writes its last lines.
    await setTask(id, 'rejected', 'n1');
    expect(await repo.appendOwned(lines(id, 4, 2), 'n1')).toBe(true);
    await setTask(id, 'error', 'n1');
    expect(await repo.appendOwned(lines(id, 6, 1), 'n1')).toBe(false);
    expect(await seqs(id)).toEqual([1, 2, 3, 4, 5]);
    expect(await seqs(other)).toEqual([]);
  });

  it('tells task folders of tasks active elsewhere, and which runs the database still holds as the node’s', async () => {
    const [id, other] = ids;
    const nodes = new NodesRepository(t().db.db);
    await setTask(id, 'running', 'n2');
    await setTask(other, 'running', 'n1');
    expect([...(await nodes.activeElsewhere([id, other, 999_999], 'n1'))]).toEqual([id]);
    expect([...(await nodes.stillOwned([id, other], 'n1'))]).toEqual([other]);
    await setTask(id, 'success', 'n2');
    expect([...(await nodes.activeElsewhere([id, other], 'n1'))]).toEqual([]);
  });

  // Another node failing the task while an append is on its way: the append waits for that
  // write and is then refused, so the failure line, numbered after the last stored line, is last.
  it.runIf(engine !== 'sqlite')('an append racing a status write of another node is decided after it', async () => {
    const [id] = ids;
    await setTask(id, 'running', 'n1');
    await t().db.db.deleteFrom('task_output').where('task_id', '=', id).execute();
    const url = t().config.dbUrl;
    const other = engine === 'postgres' ? new pg.Client({ connectionString: url }) : await mysql.createConnection(url);
    const run = (q: string) => (other instanceof pg.Client ? other.query(q) : other.query(q));
    if (other instanceof pg.Client) await other.connect();
    try {
      await run('BEGIN');
      await run(`UPDATE task SET status = 'error' WHERE id = ${id}`);
      const append = repo.appendOwned(lines(id, 1, 2), 'n1');
      let settled = false;
      void append.then(() => (settled = true));
      await sleep(300);
      expect(settled).toBe(false);
      await run('COMMIT');
      expect(await append).toBe(false);
      expect(await seqs(id)).toEqual([]);
    } finally {
      await other.end();
    }
  });
});

// Two real server processes (the built server: `npm run build` first) on one PostgreSQL database.
const postgres = engines.find((e) => e.name === 'postgres');

describe.skipIf(!postgres)('a node declared dead that comes back (PostgreSQL, two nodes)', () => {
  const secret = randomBytes(32).toString('base64');
  let tdb: TestDatabase;
  let db: Db;
  const started: ServerNode[] = [];
  afterAll(async () => {
    for (const n of started) {
      if (n.proc.exitCode === null) n.proc.kill('SIGCONT');
      await stopNode(n, 'SIGKILL');
      fs.rmSync(n.dataDir, { recursive: true, force: true });
    }
    await db?.close();
    await tdb?.drop();
  });

  it('stops at once: no line after the failure line, no duplicate seq, its task process killed, one notification; it serves again', async () => {
    assertServerBuilt();
    tdb = await postgres!.create();
    db = createDb(tdb.url);
    const env = { GANTRY_NODE_TIMEOUT_SECONDS: '3' };
    const a = await startNode('a', tdb, secret, { ...env, GANTRY_MAX_PARALLEL_TASKS: '1' });
    started.push(a);
    const c = await signInNode(a.base);
    const p = await c.post('/api/projects', { name: 'fence' });
    const projectId = p.json<{ id: number }>().id;
    const { templateId } = await setupTemplate(c, projectId, gitRepo({ 'run.sh': 'i=0\nwhile true; do i=$((i+1)); echo "tick $i"; sleep 0.02; done\n' }), { app: 'bash', playbook: 'run.sh' });
    const id = await runTask(c, projectId, { template_id: templateId });
    const taskRow = () => db.db.selectFrom('task').select(['status', 'node_id']).where('id', '=', id).executeTakeFirstOrThrow();
    const stored = () => db.db.selectFrom('task_output').select(['seq', 'output']).where('task_id', '=', id).orderBy('seq').execute();
    const until = async (what: string, fn: () => Promise<boolean>, ms = 20_000) => {
      const deadline = Date.now() + ms;
      while (!(await fn())) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
        await sleep(50);
      }
    };
    await until('the task to print', async () => (await stored()).length > 10);
    const aId = (await taskRow()).node_id!;
    // Only now the second node: the task is a's.
    const b = await startNode('b', tdb, secret, env);
    started.push(b);
    const taskProcesses = () => fs.readdirSync('/proc').filter((n) => /^\d+$/.test(n) && (() => {
      try {
        return fs.readFileSync(`/proc/${n}/cmdline`, 'utf8').includes(`-tasks/task_${id}/`);
      } catch {
        return false;
      }
    })());
    expect(taskProcesses().length).toBeGreaterThan(0);

    a.proc.kill('SIGSTOP');
    // b writes the status first and its line after it (a's appends are refused from the status
    // write on), so the line is waited for too: on a loaded machine a poll can fall between them.
    const failureLine = `Node ${aId} stopped answering; the task was failed.`;
    await until('b to fail the task', async () => (await taskRow()).status === 'error' && (await stored()).some((l) => l.output === failureLine), 15_000);
    const atFailure = await stored();
    const failure = atFailure.at(-1)!;
    expect(failure.output).toBe(failureLine);

    a.proc.kill('SIGCONT');
    // a finds itself reaped at its next heartbeat (at most a second away) and kills the task's processes.
    await until('a to kill its task process', async () => taskProcesses().length === 0, 10_000);
    await until('a to join again', async () => (await db.db.selectFrom('node').select('id').where('id', '=', aId).execute()).length === 1, 10_000);
    await sleep(500);
    const after = await stored();
    expect(after.at(-1)).toEqual(failure);
    expect(after.length).toBe(atFailure.length);
    expect(new Set(after.map((l) => l.seq)).size).toBe(after.length);
    expect(await taskRow()).toEqual({ status: 'error', node_id: aId });
    // The reaper told about the task once; a's run, ending later, told nothing.
    const events = (await db.db.selectFrom('event').select('description').where('object_type', '=', 'task').where('object_id', '=', id).execute()).map((e) => e.description);
    expect(events.filter((e) => /finished|failed/.test(e))).toEqual([`Task #${id} failed: node ${aId} stopped answering`]);
    expect(a.output.join('')).toMatch(/declared dead/);
    // a serves again, and runs tasks again.
    expect((await fetch(`${a.base}/api/ping`)).status).toBe(200);
    await stopNode(b);
    const next = await runTask(c, projectId, { template_id: (await setupTemplate(c, projectId, gitRepo({ 'run.sh': 'echo again\n' }), { app: 'bash', playbook: 'run.sh' })).templateId });
    expect((await waitForTask(c, projectId, next, undefined, 20_000)).status).toBe('success');
  }, 90_000);
});
