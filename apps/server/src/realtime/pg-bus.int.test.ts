import type { WsMessage } from '@gantry/contracts';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, type Db } from '../db/db.js';
import { migrateToLatest } from '../db/migrate.js';
import type { LogLine } from '../engine/ports.js';
import { TaskOutputRepository } from '../modules/tasks/task-output.repository.js';
import { engines } from '../test/harness.js';
import type { TestDatabase } from '../test/engines.js';
import type { LogBatch, TaskControl } from './bus.js';
import { PgEventBus } from './pg-bus.js';

const postgres = engines.find((e) => e.name === 'postgres');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function until(what: string, fn: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!fn()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}
const update = (taskId: number, status: string): WsMessage => ({ type: 'update', project_id: 1, task_id: taskId, template_id: 1, status, start: null, end: null, version: null });
const lines = (taskId: number, from: number, count: number): LogLine[] =>
  Array.from({ length: count }, (_, i) => ({ task_id: taskId, seq: from + i, time: '2026-11-24T00:00:00.000Z', output: `line ${from + i}` }));

describe.skipIf(!postgres)('the PostgreSQL bus between two nodes', () => {
  let database: TestDatabase;
  let db: Db;
  let output: TaskOutputRepository;
  let a: PgEventBus;
  let b: PgEventBus;
  const readLines = (taskId: number, fromSeq: number, toSeq: number, limit: number) => output.page(taskId, { fromSeq, toSeq, limit });

  beforeAll(async () => {
    database = await postgres!.create();
    db = createDb(database.url);
    await migrateToLatest(db);
    output = new TaskOutputRepository(db);
    a = new PgEventBus({ url: database.url, nodeId: 'node-a', readLines });
    b = new PgEventBus({ url: database.url, nodeId: 'node-b', readLines, minBackoffMs: 50, maxBackoffMs: 200 });
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
    a.publish(update(7, 'running'));
    a.control({ taskId: 7, action: 'stop' });
    a.userChanged(42);
    a.kick();
    await until('four events on b', () => onB.length >= 4);
    await sleep(100);
    // Control signals are handled at once; a task's updates wait behind its announced lines.
    expect(onB.sort()).toEqual(['control:7:stop', 'kick', 'user:42', 'ws:update:running']);
    // The sender got its own events once, locally.
    expect(onA).toEqual(['ws:update', 'kick']);
    for (const off of offs) off();
  });

  it('announces stored lines and the other node reads them from the table, in order, before the final update', async () => {
    const seen: number[] = [];
    const events: string[] = [];
    const offs = [
      b.onLines((batch: LogBatch) => {
        if (batch.task_id !== 9) return;
        for (const l of batch.lines) seen.push(l.seq);
        events.push(`lines:${batch.lines.length}`);
      }),
      b.onMessage((m) => {
        if (m.type === 'update' && m.task_id === 9) events.push(`update:${m.status}`);
      }),
    ];
    // As the log sink does: store a batch, then publish it; 12,000 lines in batches of 1,000.
    for (let from = 1; from <= 12_000; from += 1000) {
      const batch = lines(9, from, 1000);
      await output.append(batch);
      a.publishLines({ project_id: 1, task_id: 9, lines: batch });
    }
    a.publish(update(9, 'success'));
    await until('the final update on b', () => events.includes('update:success'));
    expect(seen).toEqual(Array.from({ length: 12_000 }, (_, i) => i + 1));
    expect(events.at(-1)).toBe('update:success');
    // Announced at most once per 50 ms: far fewer reads than batches.
    expect(events.filter((e) => e.startsWith('lines')).length).toBeLessThan(12);
    for (const off of offs) off();
  });

  it('reads nothing for a task nobody on the node watches', async () => {
    b.setLineInterest((taskId) => taskId !== 11);
    const got: number[] = [];
    const off = b.onLines((batch) => got.push(batch.task_id));
    const batch = lines(11, 1, 10);
    await output.append(batch);
    a.publishLines({ project_id: 1, task_id: 11, lines: batch });
    a.publish(update(11, 'success'));
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
    const killed = await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'gantry-bus node-b'");
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
});
