import type { WsMessage } from '@gantry/contracts';
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createDb, type Db } from '../db/db.js';
import { migrateToLatest } from '../db/migrate.js';
import type { LogLine } from '../engine/ports.js';
import { TaskOutputRepository } from '../modules/tasks/task-output.repository.js';
import { TasksRepository } from '../modules/tasks/tasks.repository.js';
import { engines } from '../test/harness.js';
import type { TestDatabase } from '../test/engines.js';
import { startTcpProxy, type TcpProxy } from '../test/tcp-proxy.js';
import { deriveBusKeys } from './bus-auth.js';
import { PgEventBus, type PgBusOptions } from './pg-bus.js';

// Two buses on one PostgreSQL database, one of them through a proxy the test cuts: what a node
// publishes while its bus is away, and what it misses while away, still reaches the watchers.
const postgres = engines.find((e) => e.name === 'postgres');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function until(what: string, fn: () => boolean, timeoutMs = 8_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!fn()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}
const lines = (taskId: number, from: number, count: number): LogLine[] =>
  Array.from({ length: count }, (_, i) => ({ task_id: taskId, seq: from + i, time: '2026-11-24T00:00:00.000Z', output: `line ${from + i}` }));
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe.skipIf(!postgres)('the PostgreSQL bus through an outage of one node’s connection', () => {
  let database: TestDatabase;
  let db: Db;
  let output: TaskOutputRepository;
  let tasks: TasksRepository;
  let proxy: TcpProxy;
  const keys = deriveBusKeys(randomBytes(32));
  const buses: PgEventBus[] = [];
  let project: { projectId: number; templateId: number };

  const node = async (nodeId: string, url: string, more: Partial<PgBusOptions> = {}) => {
    const bus = new PgEventBus({
      url,
      nodeId,
      keys,
      readLines: (taskId, fromSeq, toSeq, limit) => output.page(taskId, { fromSeq, toSeq, limit }),
      readTask: (id) => tasks.findById(id),
      lastSeq: (id) => output.lastSeq(id),
      minBackoffMs: 50,
      maxBackoffMs: 200,
      readRetryMs: [20],
      ...more,
    });
    buses.push(bus);
    await bus.start();
    return bus;
  };
  /** What one bus hands its node's listeners for a task, in order. */
  const heard = (bus: PgEventBus, taskId: number) => {
    const seqs: number[] = [];
    const events: string[] = [];
    bus.onLines((b) => {
      if (b.task_id !== taskId) return;
      for (const l of b.lines) seqs.push(l.seq);
      events.push('lines');
    });
    bus.onMessage((m: WsMessage) => {
      if (m.task_id !== taskId) return;
      events.push(m.type === 'update' ? `update:${m.status}` : m.type === 'gap' ? `gap:${m.from_seq}-${m.to_seq}` : m.type);
    });
    return { seqs, events };
  };
  async function insert(table: string, values: Record<string, string | number>): Promise<number> {
    const row = { created: new Date().toISOString(), ...values };
    const r = await sql<{ id: number }>`INSERT INTO ${sql.table(table)} (${sql.join(Object.keys(row).map((c) => sql.ref(c)))}) VALUES (${sql.join(Object.values(row))}) RETURNING id`.execute(db.db);
    return r.rows[0]!.id;
  }
  /** A task another node ("flap-a") runs. */
  const task = (status = 'running') => insert('task', { project_id: project.projectId, template_id: project.templateId, status, node_id: 'flap-a' });
  /** As the log sink does: lines are stored, then published. */
  async function store(bus: PgEventBus, taskId: number, from: number, count: number): Promise<void> {
    const batch = lines(taskId, from, count);
    await output.append(batch);
    bus.publishLines({ project_id: project.projectId, task_id: taskId, lines: batch });
  }
  /** As a run ends: the row first, then the update. */
  async function finish(bus: PgEventBus, taskId: number, status: string): Promise<void> {
    await db.db.updateTable('task').set({ status }).where('id', '=', taskId).execute();
    bus.publish({ type: 'update', project_id: project.projectId, task_id: taskId, template_id: project.templateId, status, start: null, end: null, version: null });
  }

  beforeAll(async () => {
    database = await postgres!.create();
    db = createDb(database.url);
    await migrateToLatest(db);
    output = new TaskOutputRepository(db);
    tasks = new TasksRepository(db.db, output, 'postgres');
    const projectId = await insert('project', { name: 'p' });
    const keyId = await insert('access_key', { project_id: projectId, name: 'k', type: 'none' });
    const repositoryId = await insert('repository', { project_id: projectId, name: 'r', git_url: '/nowhere', ssh_key_id: keyId });
    const environmentId = await insert('environment', { project_id: projectId, name: 'e' });
    project = { projectId, templateId: await insert('template', { project_id: projectId, name: 't', app: 'bash', repository_id: repositoryId, environment_id: environmentId }) };
    const target = new URL(database.url);
    proxy = await startTcpProxy(target.hostname, Number(target.port || 5432));
  });
  afterEach(async () => {
    proxy.restore();
    for (const bus of buses.splice(0)) await bus.close();
  });
  afterAll(async () => {
    await proxy?.close();
    await db?.close();
    await database?.drop();
  });

  it('sends again, once back, the lines it announced and the final update it published while away: lines first', async () => {
    const a = await node('flap-a', proxy.url(database.url));
    const b = await node('flap-b', database.url);
    const id = await task();
    const onB = heard(b, id);
    await store(a, id, 1, 10);
    await until('the first lines on b', () => onB.seqs.length === 10);

    proxy.cut();
    await until('a to see its bus gone', () => !a.isConnected());
    // Stored by the run (its own pool is fine), announced on a bus that reaches nobody.
    await store(a, id, 11, 30);
    await sleep(60);
    await store(a, id, 41, 20);
    await finish(a, id, 'success');
    await sleep(300);
    expect(onB.seqs).toEqual(range(1, 10));
    expect(a.owedTasks()).toBe(1);

    proxy.restore();
    await until('the final update on b', () => onB.events.includes('update:success'));
    expect(onB.seqs).toEqual(range(1, 60));
    expect(onB.events.at(-1)).toBe('update:success');
    await until('a to owe nothing', () => a.owedTasks() === 0);
  });

  it('a node whose bus was away reads what it missed from the database: the lines after the last it handed on, then the status', async () => {
    const a = await node('flap-a', database.url);
    const b = await node('flap-b', proxy.url(database.url));
    const id = await task();
    // Watched by a subscriber on b, but b never heard of it before the outage.
    const quiet = await task();
    b.setWatchedTasks(() => [id, quiet]);
    const onB = heard(b, id);
    const quietOnB = heard(b, quiet);
    await store(a, id, 1, 10);
    await until('the first lines on b', () => onB.seqs.length === 10);

    proxy.cut();
    await until('b to see its bus gone', () => !b.isConnected());
    await store(a, id, 11, 25);
    await store(a, quiet, 1, 7);
    await sleep(60);
    await store(a, id, 36, 5);
    await finish(a, id, 'error');
    await finish(a, quiet, 'success');
    // a's messages were taken by the database: a owes nothing, b alone must make good what it missed.
    await until('a to owe nothing', () => a.owedTasks() === 0);
    await sleep(200);
    expect(onB.seqs).toEqual(range(1, 10));

    proxy.restore();
    await until('the final statuses on b', () => onB.events.includes('update:error') && quietOnB.events.includes('update:success'));
    expect(onB.seqs).toEqual(range(1, 40));
    expect(onB.events.at(-1)).toBe('update:error');
    expect(quietOnB.seqs).toEqual(range(1, 7));
    expect(quietOnB.events).toEqual(['lines', 'update:success']);
    // The other node's lines and update after the catch-up are not handed on twice.
    await sleep(200);
    expect(onB.events.filter((e) => e.startsWith('update'))).toEqual(['update:error']);
  });

  it('lines the database will not give back become a gap for that range; the task’s update still follows', async () => {
    const a = await node('flap-a', database.url);
    const broken = new Set<number>();
    const b = await node('flap-b', database.url, {
      readLines: async (taskId, fromSeq, toSeq, limit) => {
        if (broken.has(taskId)) throw new Error('connection terminated');
        return output.page(taskId, { fromSeq, toSeq, limit });
      },
    });
    const id = await task();
    const onB = heard(b, id);
    await store(a, id, 1, 4);
    await until('the first lines on b', () => onB.seqs.length === 4);
    broken.add(id);
    await store(a, id, 5, 6);
    await until('a gap on b', () => onB.events.some((e) => e.startsWith('gap')));
    broken.delete(id);
    await store(a, id, 11, 2);
    await finish(a, id, 'success');
    await until('the final update on b', () => onB.events.includes('update:success'));
    expect(onB.events).toEqual(['lines', 'gap:5-10', 'lines', 'update:success']);
    expect(onB.seqs).toEqual([...range(1, 4), 11, 12]);
  });
});
