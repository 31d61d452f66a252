import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createDb, type Db } from '../../../db/db.js';
import { migrateToLatest } from '../../../db/migrate.js';
import { insertReturningId } from '../../../db/portable.js';
import { engines, type TestDatabase } from '../../../test/engines.js';
import { closedPort, startHttpReceiver, type HttpReceiver } from '../../../test/http-receiver.js';
import { waitFor } from '../../../test/wait.js';
import type { DeliveryToEnqueue, OpenDestination } from '../notification-payload.js';
import { DeliveriesRepository } from './deliveries.repository.js';
import { DeliveryWorker, deliveryPublicId } from './delivery-worker.js';
import { verifySignature } from './signature.js';
import { samplePayload } from './test-payload.js';

const SECRET = 'whsec_worker_0123456789';
const START = new Date('2026-03-01T10:00:00.000Z');

/**
 * The delivery queue on real databases: retries after the receiver was down, backoff and the
 * retry window, and two nodes racing over one queue delivering each row exactly once.
 */
describe.each(engines)('delivery worker ($name)', (engine) => {
  let database: TestDatabase;
  let d: Db;
  let repo: DeliveriesRepository;
  let receiver: HttpReceiver;
  let status = 200;
  let destId: number;
  let now = START;
  const clock = { now: () => now };
  let target = '';
  let seq = 0;

  const dest = (): OpenDestination => ({
    id: destId,
    projectId: null,
    name: 'hook',
    kind: 'webhook',
    config: {},
    secrets: { url: target, secret: SECRET },
  });
  const ctx = { allowedHosts: ['127.0.0.1'], now: () => now, timeoutMs: 3000 };
  const worker = (nodeId: string, r = repo, destination: () => Promise<OpenDestination | null> = async () => dest()) =>
    new DeliveryWorker({ repo: r, destination, clock, nodeId, ctx });
  const row = (dedupKey: string): DeliveryToEnqueue => ({
    destinationId: destId,
    projectId: null,
    dedupKey,
    event: 'task_failed',
    subject: 'Task #99 of Deploy',
    taskId: 99,
    templateId: null,
    payload: samplePayload({ id: '' }),
  });
  const stored = (key: string) =>
    d.db.selectFrom('notification_delivery').selectAll().where('dedup_key', '=', key).executeTakeFirstOrThrow();

  beforeAll(async () => {
    database = await engine.create();
    d = createDb(database.url);
    await migrateToLatest(d);
    repo = new DeliveriesRepository(d.db);
    receiver = await startHttpReceiver(() => status);
    target = `${receiver.url}/hook`;
    const project = await insertReturningId(d.db, 'project', {
      name: 'p',
      created: START.toISOString(),
      type: '',
      alert: 0,
      max_parallel_tasks: 0,
    });
    destId = await insertReturningId(d.db, 'notification_destination', {
      project_id: project,
      name: 'hook',
      kind: 'webhook',
      config: '{}',
      secrets: '',
      active: 1,
      created: START.toISOString(),
    });
  });
  afterEach(() => {
    status = 200;
    target = `${receiver.url}/hook`;
    now = START;
  });
  afterAll(async () => {
    await receiver?.close();
    await d?.close();
    await database?.drop();
  });

  it('enqueues a dedup key once, also on a second enqueue of the same event', async () => {
    const key = `dup-${seq++}`;
    expect(await repo.enqueue([row(key), row(`other-${seq++}`)], START.toISOString())).toBe(2);
    expect(await repo.enqueue([row(key)], START.toISOString())).toBe(0);
    const rows = await d.db.selectFrom('notification_delivery').select('id').where('dedup_key', '=', key).execute();
    expect(rows).toHaveLength(1);
    // Left for the later tests to deliver.
    await worker('n0').runDue();
  });

  it('retries after the receiver was down and delivers exactly once when it is back', async () => {
    const key = `retry-${seq++}`;
    await repo.enqueue([row(key)], now.toISOString());
    const w = worker('n1');
    target = `http://127.0.0.1:${await closedPort()}/hook`;
    expect(await w.runDue()).toBe(1);
    let r = await stored(key);
    expect(r).toMatchObject({ status: 'pending', attempts: 1, http_status: null, delivered: null });
    expect(r.error).toBeTruthy();
    expect(r.next_attempt).toBe(new Date(START.getTime() + 10_000).toISOString());
    // Not due yet: nothing happens.
    expect(await w.runDue()).toBe(0);

    target = `${receiver.url}/hook`;
    status = 503;
    now = new Date(START.getTime() + 10_000);
    expect(await w.runDue()).toBe(1);
    r = await stored(key);
    expect(r).toMatchObject({ status: 'pending', attempts: 2, http_status: 503 });
    expect(r.next_attempt).toBe(new Date(now.getTime() + 30_000).toISOString());

    status = 200;
    now = new Date(now.getTime() + 30_000);
    const before = receiver.requests.length;
    expect(await w.runDue()).toBe(1);
    r = await stored(key);
    expect(r).toMatchObject({
      status: 'sent',
      attempts: 3,
      http_status: 200,
      error: null,
      delivered: now.toISOString(),
    });
    now = new Date(now.getTime() + 3600_000);
    expect(await w.runDue()).toBe(0);

    const got = receiver.requests.slice(before);
    expect(got).toHaveLength(1);
    const id = deliveryPublicId(key);
    expect(got[0]!.headers['x-gantry-delivery']).toBe(id);
    expect((got[0]!.json as { id: string }).id).toBe(id);
    expect(
      verifySignature(
        SECRET,
        String(got[0]!.headers['x-gantry-signature']),
        got[0]!.body,
        now.getTime() / 1000,
        3600 + 60,
      ),
    ).toBe(true);
  });

  it('gives up on a refusal at once, on other failures after the retry window, and on a removed destination', async () => {
    const refused = `refused-${seq++}`;
    const late = `late-${seq++}`;
    await repo.enqueue([row(refused), row(late)], now.toISOString());
    status = 404;
    await worker('n1').runDue();
    expect(await stored(refused)).toMatchObject({ status: 'failed', attempts: 1, http_status: 404 });
    expect(await stored(late)).toMatchObject({ status: 'failed', attempts: 1, http_status: 404 });

    const window = `window-${seq++}`;
    await repo.enqueue([row(window)], now.toISOString());
    status = 500;
    // The next try (10 s on) would fall past 25 h after the row was queued.
    now = new Date(START.getTime() + 25 * 3600_000 - 5_000);
    await worker('n1').runDue();
    expect(await stored(window)).toMatchObject({ status: 'failed', attempts: 1, http_status: 500 });

    const gone = `gone-${seq++}`;
    await repo.enqueue([row(gone)], now.toISOString());
    await worker('n1', repo, async () => null).runDue();
    expect(await stored(gone)).toMatchObject({ status: 'failed', error: 'Destination removed or inactive' });

    const last = await repo.lastByDestination([destId, 999_999]);
    expect(last.get(destId)).toMatchObject({ status: 'failed', error: 'Destination removed or inactive' });
    expect(last.has(999_999)).toBe(false);
    const page = await repo.list(destId, 2);
    expect(page.map((p) => p.dedup_key)).toEqual([gone, window]);
    expect((await repo.list(destId, 1, page[1]!.id))[0]!.dedup_key).toBe(late);
  });

  it('works as a loop: start, wake, stop', async () => {
    const key = `loop-${seq++}`;
    const w = new DeliveryWorker({ repo, destination: async () => dest(), clock, nodeId: 'loop', ctx, pollMs: 50 });
    w.start();
    await repo.enqueue([row(key)], now.toISOString());
    w.wake();
    await waitFor('the delivery', async () => (await stored(key)).status === 'sent');
    await w.stop();
  });

  it('two nodes racing over 20 rows deliver each exactly once', async () => {
    const other = createDb(database.url);
    try {
      const keys = Array.from({ length: 20 }, () => `race-${seq++}`);
      await repo.enqueue(keys.map(row), now.toISOString());
      const before = receiver.requests.length;
      const a = worker('node-a');
      const b = worker('node-b', new DeliveriesRepository(other.db));
      const [na, nb] = await Promise.all([a.runDue(), b.runDue()]);
      // A round looks at up to 20 rows: together they attempted each row once.
      expect(na + nb).toBe(20);
      expect(await a.runDue()).toBe(0);
      const seen = receiver.requests.slice(before).map((r) => String(r.headers['x-gantry-delivery']));
      expect(seen.sort()).toEqual(keys.map(deliveryPublicId).sort());
      for (const k of keys) expect(await stored(k)).toMatchObject({ status: 'sent', attempts: 1 });
    } finally {
      await other.close();
    }
  });

  it('prunes sent and failed rows past the keep time, never pending ones', async () => {
    const pending = `keep-${seq++}`;
    await repo.enqueue([row(pending)], now.toISOString());
    const removed = await repo.prune(new Date(START.getTime() + 365 * 86_400_000).toISOString());
    expect(removed).toBeGreaterThan(20);
    const left = await d.db.selectFrom('notification_delivery').select(['dedup_key', 'status']).execute();
    expect(left).toEqual([{ dedup_key: pending, status: 'pending' }]);
  });
});
