import type { WsMessage } from '@gantry/contracts';
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, type Db } from '../db/db.js';
import { migrateToLatest } from '../db/migrate.js';
import type { LogLine } from '../engine/ports.js';
import { TaskOutputRepository } from '../modules/tasks/task-output.repository.js';
import { TasksRepository } from '../modules/tasks/tasks.repository.js';
import { engines } from '../test/harness.js';
import type { TestDatabase } from '../test/engines.js';
import type { LogBatch, TaskControl } from './bus.js';
import { BUS_WINDOW_MS, deriveBusKeys, signMessage } from './bus-auth.js';
import { RealtimeHub, type HubSocket } from './hub.js';
import { BUS_CHANNEL, PgEventBus, type PgBusOptions } from './pg-bus.js';

const postgres = engines.find((e) => e.name === 'postgres');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function until(what: string, fn: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!fn()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}
const update = (task: Task, status: string, projectId = task.projectId): WsMessage => ({
  type: 'update',
  project_id: projectId,
  task_id: task.id,
  template_id: task.templateId,
  status,
  start: null,
  end: null,
  version: null,
});
const lines = (taskId: number, from: number, count: number): LogLine[] =>
  Array.from({ length: count }, (_, i) => ({ task_id: taskId, seq: from + i, time: '2026-11-24T00:00:00.000Z', output: `line ${from + i}` }));

interface Task {
  id: number;
  projectId: number;
  templateId: number;
}

/** A socket of the hub that keeps what it was sent. */
class FakeSocket implements HubSocket {
  readyState = 1;
  bufferedAmount = 0;
  sent: WsMessage[] = [];
  send(data: string): void {
    this.sent.push(JSON.parse(data) as WsMessage);
  }
  close(): void {
    this.readyState = 3;
  }
}

describe.skipIf(!postgres)('the PostgreSQL bus between two nodes', () => {
  let database: TestDatabase;
  let db: Db;
  let output: TaskOutputRepository;
  let tasks: TasksRepository;
  let a: PgEventBus;
  let b: PgEventBus;
  /** Why b dropped each message it did not believe, in order. */
  const droppedByB: string[] = [];
  const masterKey = randomBytes(32);
  const keys = deriveBusKeys(masterKey);
  const readLines = (taskId: number, fromSeq: number, toSeq: number, limit: number) => output.page(taskId, { fromSeq, toSeq, limit });
  const node = (nodeId: string, more: Partial<PgBusOptions> = {}) =>
    new PgEventBus({ url: database.url, nodeId, keys, readLines, readTask: (id) => tasks.findById(id), minBackoffMs: 50, maxBackoffMs: 200, ...more });

  /** A project with one template, as the rows a task needs. */
  /** Inserts a row (columns left out take their defaults) and answers its id. */
  async function insert(table: string, values: Record<string, string | number>): Promise<number> {
    const row = { created: new Date().toISOString(), ...values };
    const r = await sql<{ id: number }>`INSERT INTO ${sql.table(table)} (${sql.join(Object.keys(row).map((c) => sql.ref(c)))}) VALUES (${sql.join(Object.values(row))}) RETURNING id`.execute(db.db);
    return r.rows[0]!.id;
  }
  /** A project with one template: what a task row needs. */
  async function project(): Promise<{ projectId: number; templateId: number }> {
    const projectId = await insert('project', { name: 'p' });
    const keyId = await insert('access_key', { project_id: projectId, name: 'k', type: 'none' });
    const repositoryId = await insert('repository', { project_id: projectId, name: 'r', git_url: '/nowhere', ssh_key_id: keyId });
    const environmentId = await insert('environment', { project_id: projectId, name: 'e' });
    const templateId = await insert('template', { project_id: projectId, name: 't', app: 'bash', repository_id: repositoryId, environment_id: environmentId });
    return { projectId, templateId };
  }
  let projectA: { projectId: number; templateId: number };
  let projectB: { projectId: number; templateId: number };
  async function task(p: { projectId: number; templateId: number }, status: string): Promise<Task> {
    return { id: await insert('task', { project_id: p.projectId, template_id: p.templateId, status }), ...p };
  }

  beforeAll(async () => {
    database = await postgres!.create();
    db = createDb(database.url);
    await migrateToLatest(db);
    output = new TaskOutputRepository(db);
    tasks = new TasksRepository(db.db, output, 'postgres');
    projectA = await project();
    projectB = await project();
    a = node('node-a');
    b = node('node-b', { onDrop: (reason) => droppedByB.push(reason) });
    await a.start();
    await b.start();
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await db?.close();
    await database?.drop();
  });

  it('carries updates, control signals, user changes and wake-ups to the other node once, and never back to the sender', async () => {
    const t = await task(projectA, 'stopping');
    const onB: string[] = [];
    const onA: string[] = [];
    const offs = [
      b.onMessage((m) => onB.push(`ws:${m.type}:${'status' in m ? m.status : ''}`)),
      b.onControl((c: TaskControl) => onB.push(`control:${c.taskId}:${c.action}`)),
      b.onUserChanged((u) => onB.push(`user:${u}`)),
      b.onKick(() => onB.push('kick')),
      a.onMessage((m) => onA.push(`ws:${m.type}`)),
      a.onKick(() => onA.push('kick')),
    ];
    a.publish(update(t, 'stopping'));
    a.control({ taskId: t.id, action: 'stop' });
    a.userChanged(42);
    a.kick();
    await until('four events on b', () => onB.length >= 4);
    await sleep(100);
    // Control signals are handled at once; a task's updates wait behind its announced lines.
    expect(onB.sort()).toEqual([`control:${t.id}:stop`, 'kick', 'user:42', 'ws:update:stopping']);
    // The sender got its own events once, locally.
    expect(onA).toEqual(['ws:update', 'kick']);
    for (const off of offs) off();
  });

  it('announces stored lines and the other node reads them from the table, in order, before the final update', async () => {
    const t = await task(projectA, 'running');
    const seen: number[] = [];
    const events: string[] = [];
    const offs = [
      b.onLines((batch: LogBatch) => {
        if (batch.task_id !== t.id) return;
        expect(batch.project_id).toBe(t.projectId);
        for (const l of batch.lines) seen.push(l.seq);
        events.push(`lines:${batch.lines.length}`);
      }),
      b.onMessage((m) => {
        if (m.type === 'update' && m.task_id === t.id) events.push(`update:${m.status}`);
      }),
    ];
    // As the log sink does: store a batch, then publish it; 12,000 lines in batches of 1,000.
    for (let from = 1; from <= 12_000; from += 1000) {
      const batch = lines(t.id, from, 1000);
      await output.append(batch);
      a.publishLines({ project_id: t.projectId, task_id: t.id, lines: batch });
    }
    a.publish(update(t, 'success'));
    await until('the final update on b', () => events.includes('update:success'));
    expect(seen).toEqual(Array.from({ length: 12_000 }, (_, i) => i + 1));
    expect(events.at(-1)).toBe('update:success');
    // Announced at most once per 50 ms: far fewer reads than batches.
    expect(events.filter((e) => e.startsWith('lines')).length).toBeLessThan(12);
    for (const off of offs) off();
  });

  it('reads nothing for a task nobody on the node watches', async () => {
    const t = await task(projectA, 'running');
    b.setLineInterest((taskId) => taskId !== t.id);
    const got: number[] = [];
    const off = b.onLines((batch) => got.push(batch.task_id));
    const batch = lines(t.id, 1, 10);
    await output.append(batch);
    a.publishLines({ project_id: t.projectId, task_id: t.id, lines: batch });
    a.publish(update(t, 'success'));
    await sleep(300);
    expect(got).toEqual([]);
    off();
    b.setLineInterest(() => true);
  });

  it('reconnects after its connection is killed, tells its listeners, and carries events again', async () => {
    let reconnected = 0;
    b.onReconnect(() => reconnected++);
    const admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
    // Only this test's database: other tests' buses may have the same name.
    const killed = await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'gantry-bus node-b' AND datname = current_database()");
    expect(killed.rowCount).toBe(1);
    await admin.end();
    await until('b to notice', () => !b.isConnected() || reconnected > 0);
    await until('b to reconnect', () => b.isConnected() && reconnected === 1, 10_000);
    expect(a.isConnected()).toBe(true);
    const kicks: number[] = [];
    const off = b.onKick(() => kicks.push(1));
    a.kick();
    await until('a kick after reconnecting', () => kicks.length === 1);
    off();
  });

  describe('what any other role on the database server can NOTIFY or LISTEN', () => {
    let attacker: pg.Client;
    const heard: string[] = [];
    const notify = (payload: string) => attacker.query('SELECT pg_notify($1, $2)', [BUS_CHANNEL, payload]);
    /** What the attacker hears of what `send` sends. */
    async function capture(send: () => void): Promise<string> {
      const before = heard.length;
      send();
      await until('the attacker to hear it', () => heard.length > before);
      return heard[before]!;
    }
    /** How many messages b dropped for each reason since it had dropped `mark`. */
    const droppedSince = (mark: number) => {
      const counts: Record<string, number> = {};
      for (const reason of droppedByB.slice(mark)) counts[reason] = (counts[reason] ?? 0) + 1;
      return counts;
    };

    beforeAll(async () => {
      attacker = new pg.Client({ connectionString: database.url });
      await attacker.connect();
      attacker.on('notification', (n) => {
        if (n.channel === BUS_CHANNEL && n.payload) heard.push(n.payload);
      });
      await attacker.query(`LISTEN ${BUS_CHANNEL}`);
    });
    afterAll(async () => {
      await attacker?.end();
    });

    it('an unsigned, foreign-signed or altered confirm reaches no task; a signed one only wakes the node, which acts as the row says', async () => {
      const unconfirmed = await task(projectA, 'waiting_confirmation');
      const confirmed = await task(projectA, 'confirmed');
      const got: string[] = [];
      const off = b.onControl((c) => got.push(`${c.taskId}:${c.action}`));
      const mark = droppedByB.length;
      // The message as nodes used to send it, unsigned.
      await notify(JSON.stringify({ n: 'node-a', k: 'control', c: { taskId: unconfirmed.id, action: 'confirm' } }));
      // Signed, but with a key that is not derived from the servers' master key.
      await notify(signMessage(deriveBusKeys(randomBytes(32)), { n: 'node-a', i: 'forged', q: 1, ts: Date.now() }, { k: 'control', t: unconfirmed.id }));
      // A genuine message with another task's id put in.
      const genuine = await capture(() => a.control({ taskId: confirmed.id, action: 'confirm' }));
      await notify(genuine.replace(`"t":${confirmed.id}`, `"t":${unconfirmed.id}`));
      // From a node itself: the row says nobody confirmed this task, so b does nothing.
      a.control({ taskId: unconfirmed.id, action: 'confirm' });
      await until('the genuine confirm', () => got.length > 0);
      await sleep(300);
      expect(got).toEqual([`${confirmed.id}:confirm`]);
      expect((await tasks.findById(unconfirmed.id))!.status).toBe('waiting_confirmation');
      expect(droppedSince(mark)).toEqual({ format: 1, mac: 2 });
      off();
    });

    it('a replay of a captured signed message is dropped', async () => {
      const t = await task(projectA, 'stopping');
      const got: string[] = [];
      const offs = [
        b.onControl((c) => got.push(`control:${c.action}`)),
        b.onKick(() => got.push('kick')),
        b.onMessage((m) => {
          if (m.task_id === t.id) got.push(`update:${'status' in m ? m.status : ''}`);
        }),
      ];
      const control = await capture(() => a.control({ taskId: t.id, action: 'stop' }));
      const kick = await capture(() => a.kick());
      const frame = await capture(() => a.publish(update(t, 'stopping')));
      await until('the three genuine messages', () => got.length === 3);
      const mark = droppedByB.length;
      for (const payload of [control, kick, frame, control, kick]) await notify(payload);
      // A later genuine message still passes.
      a.kick();
      await until('the next genuine kick', () => got.filter((e) => e === 'kick').length >= 2);
      await sleep(300);
      expect(got.sort()).toEqual(['control:stop', 'kick', 'kick', 'update:stopping']);
      expect(droppedSince(mark)).toEqual({ replay: 5 });
      for (const off of offs) off();
    });

    it('a message stamped outside the window is dropped, even when it was once genuine', async () => {
      // Heard before node c listened: c never saw it, and by c's clock it was sent 65 s ago.
      const old = await capture(() => a.kick());
      let skew = BUS_WINDOW_MS + 5_000;
      const c = node('node-c', { now: () => Date.now() + skew });
      await c.start();
      try {
        const kicks: number[] = [];
        c.onKick(() => kicks.push(1));
        await notify(old);
        await sleep(200);
        skew = 0;
        // Signed with the servers' own key, but dated two minutes ago or ahead.
        for (const ts of [Date.now() - 2 * BUS_WINDOW_MS, Date.now() + 2 * BUS_WINDOW_MS]) {
          await notify(signMessage(keys, { n: 'node-a', i: 'late', q: ts, ts }, { k: 'kick' }));
        }
        a.kick();
        await until('a current kick', () => kicks.length >= 1);
        await sleep(300);
        expect(kicks).toEqual([1]);
        expect(c.droppedMessages()).toEqual({ stale: 3 });
      } finally {
        await c.close();
      }
    });

    it("lines and updates of project B's task never reach a guest of project A, whoever names project A", async () => {
      const secret = await task(projectB, 'running');
      const secretLines = lines(secret.id, 1, 3).map((l) => ({ ...l, output: `secret of B ${l.seq}` }));
      await output.append(secretLines);
      const own = await task(projectA, 'running');
      const ownLines = lines(own.id, 1, 2);
      await output.append(ownLines);
      const guest = new FakeSocket();
      const hub = new RealtimeHub(b, async (projectId) => projectId === projectA.projectId, async () => ({ id: 5, admin: false }), { revalidateMs: 60_000 });
      hub.add(guest, { id: 5, admin: false }, { kind: 'session', value: 'guest of A' });
      try {
        const mark = droppedByB.length;
        // Unsigned, as nodes used to send them: B's lines and a status frame, said to be A's.
        await notify(JSON.stringify({ n: 'node-a', k: 'lines', p: projectA.projectId, t: secret.id, f: 1, s: 3 }));
        await notify(JSON.stringify({ n: 'node-a', k: 'ws', m: update(secret, 'success', projectA.projectId) }));
        // Signed, from a node that names the wrong project: b goes by the task's row.
        a.publishLines({ project_id: projectA.projectId, task_id: secret.id, lines: secretLines });
        a.publish(update(secret, 'running', projectA.projectId));
        // The guest's own project's task still reaches it.
        a.publishLines({ project_id: projectA.projectId, task_id: own.id, lines: ownLines });
        a.publish(update(own, 'success'));
        await until("the guest's own task", () => guest.sent.some((m) => m.type === 'update' && m.task_id === own.id));
        await sleep(300);
        expect(guest.sent.filter((m) => m.task_id === secret.id)).toEqual([]);
        expect(guest.sent.map((m) => (m.type === 'log' ? m.output : m.type))).toEqual(['line 1', 'line 2', 'update']);
        expect(droppedSince(mark)).toEqual({ format: 2, task: 1 });
      } finally {
        hub.close();
        b.setLineInterest(() => true);
      }
    });

    it('a LISTEN hears kinds and ids only: an update frame travels sealed', async () => {
      const t = await task(projectA, 'waiting_confirmation');
      const frame: WsMessage = { ...update(t, 'waiting_confirmation'), version: 'release-7f3c' } as WsMessage;
      const got: WsMessage[] = [];
      const off = b.onMessage((m) => {
        if (m.task_id === t.id) got.push(m);
      });
      const payload = await capture(() => a.publish(frame));
      expect(payload).not.toContain('waiting_confirmation');
      expect(payload).not.toContain('release-7f3c');
      await until('b to open it', () => got.length === 1);
      expect(got).toEqual([frame]);
      off();
    });
  });
});
