import type { WsMessage } from '@gantry/contracts';
import { createRequire } from 'node:module';
import { afterEach, describe, expect, it } from 'vitest';
import { EventBus } from './bus.js';
import { CLOSE_TOO_SLOW, RealtimeHub, type HubSocket } from './hub.js';

/** A socket whose unsent backlog the test sets, as a client that stopped reading would leave it. */
class FakeSocket implements HubSocket {
  readyState = 1;
  bufferedAmount = 0;
  sent: string[] = [];
  closedWith: number | null = null;
  send(data: string): void {
    this.sent.push(data);
  }
  close(code: number): void {
    this.closedWith = code;
    this.readyState = 3;
  }
}

const { Receiver } = createRequire(import.meta.url)('ws') as {
  Receiver: new (options: { isServer: boolean }) => { on(event: 'message', fn: (data: Buffer) => void): void; write(chunk: Buffer, cb: () => void): void };
};

/** A network socket: frames the hub writes in one go are read back as a client would, in order with its other messages. */
class FramesSocket extends FakeSocket {
  /** Writes of batched frames. */
  writes = 0;
  /** Messages sent one by one (each a frame and a write of its own). */
  sends = 0;
  private readonly receiver = new Receiver({ isServer: false });
  constructor() {
    super();
    this.receiver.on('message', (data) => this.sent.push(data.toString('utf8')));
  }
  override send(data: string): void {
    this.sends += 1;
    super.send(data);
  }
  sendFrames(frames: Buffer): void {
    this.writes += 1;
    this.receiver.write(frames, () => undefined);
  }
}

const update = (taskId: number): WsMessage =>
  ({ type: 'update', project_id: 1, task_id: taskId, status: 'running' }) as WsMessage;
const flush = () => new Promise((r) => setTimeout(r, 10));
const lines = (taskId: number, from: number, count: number, projectId = 1) => ({
  project_id: projectId,
  task_id: taskId,
  lines: Array.from({ length: count }, (_, i) => ({ task_id: taskId, seq: from + i, time: 't', output: `line ${from + i}` })),
});
const parsed = (s: FakeSocket) => s.sent.map((x) => JSON.parse(x) as WsMessage);
const newHub = (bus: EventBus, options = {}) =>
  new RealtimeHub(
    bus,
    async () => true,
    async () => ({ id: 1, admin: true }),
    { batchMs: 50, ...options },
  );

describe('RealtimeHub', () => {
  let hub: RealtimeHub | undefined;
  afterEach(() => hub?.close());

  it('closes a client that does not read (4000) instead of buffering for it; others keep receiving', async () => {
    const bus = new EventBus();
    hub = new RealtimeHub(
      bus,
      async () => true,
      async () => ({ id: 1, admin: true }),
      { maxBufferedBytes: 1000 },
    );
    const slow = new FakeSocket();
    const fast = new FakeSocket();
    hub.add(slow, { id: 1, admin: true }, { kind: 'session', value: 'a' });
    hub.add(fast, { id: 2, admin: true }, { kind: 'session', value: 'b' });

    bus.publish(update(1));
    await flush();
    slow.bufferedAmount = 5000;
    bus.publish(update(2));
    bus.publish(update(3));
    await flush();

    expect(slow.sent).toHaveLength(1);
    expect(slow.closedWith).toBe(CLOSE_TOO_SLOW);
    expect(fast.sent).toHaveLength(3);
    expect(hub.size).toBe(1);
  });

  it('sends lines only to sockets subscribed to the task, as `logs` messages, and per-line `log` frames to sockets that never subscribed', async () => {
    const bus = new EventBus();
    hub = newHub(bus);
    const watcher = new FakeSocket();
    const other = new FakeSocket();
    const legacy = new FakeSocket();
    hub.add(watcher, { id: 1, admin: true }, { kind: 'session', value: 'a' }, true).subscribe(5);
    hub.add(other, { id: 1, admin: true }, { kind: 'session', value: 'a' }, true).subscribe(6);
    hub.add(legacy, { id: 1, admin: true }, { kind: 'session', value: 'a' });
    bus.publishLines(lines(5, 1, 3));
    await flush();
    expect(parsed(watcher)).toEqual([
      { type: 'logs', project_id: 1, task_id: 5, from_seq: 1, lines: [1, 2, 3].map((i) => ({ time: 't', output: `line ${i}` })) },
    ]);
    expect(other.sent).toEqual([]);
    expect(parsed(legacy).map((m) => (m.type === 'log' ? m.seq : null))).toEqual([1, 2, 3]);
  });

  it('sends at most one message per batch interval per task, however many batches arrive', async () => {
    const bus = new EventBus();
    hub = newHub(bus);
    const watcher = new FakeSocket();
    hub.add(watcher, { id: 1, admin: true }, { kind: 'session', value: 'a' }, true).subscribe(5);
    const started = Date.now();
    for (let i = 0; i < 40; i++) {
      bus.publishLines(lines(5, i * 100 + 1, 100));
      await new Promise((r) => setTimeout(r, 5));
    }
    await new Promise((r) => setTimeout(r, 80));
    const elapsed = Date.now() - started;
    const msgs = parsed(watcher);
    // The first batch goes at once, the rest at most every 50 ms.
    expect(msgs.length).toBeLessThanOrEqual(Math.ceil(elapsed / 50) + 1);
    expect(msgs.length).toBeLessThan(40);
    const seqs = msgs.flatMap((m) => (m.type === 'logs' ? m.lines.map((_, i) => m.from_seq + i) : []));
    expect(seqs).toEqual(Array.from({ length: 4000 }, (_, i) => i + 1));
  });

  it("writes a legacy socket's per-line frames once per batch interval where it can: every line, in order, before the task's update", async () => {
    const bus = new EventBus();
    hub = newHub(bus);
    const legacy = new FramesSocket();
    hub.add(legacy, { id: 1, admin: true }, { kind: 'session', value: 'a' });
    const started = Date.now();
    for (let i = 0; i < 40; i++) {
      bus.publishLines(lines(5, i * 100 + 1, 100));
      await new Promise((r) => setTimeout(r, 5));
    }
    await new Promise((r) => setTimeout(r, 80));
    bus.publish(update(5));
    await flush();
    const elapsed = Date.now() - started;
    const msgs = parsed(legacy);
    // Semaphore's frames: one line each, all 4,000 of them, but written at most once per 50 ms.
    expect(msgs).toHaveLength(4001);
    expect(msgs.slice(0, 4000).map((m) => (m.type === 'log' ? m.seq : null))).toEqual(Array.from({ length: 4000 }, (_, i) => i + 1));
    expect(msgs[1234]).toEqual({ type: 'log', project_id: 1, task_id: 5, output: 'line 1235', time: 't', seq: 1235 });
    expect(msgs[4000]!.type).toBe('update');
    expect(legacy.sends).toBe(1);
    expect(legacy.writes).toBeGreaterThan(0);
    expect(legacy.writes).toBeLessThanOrEqual(Math.ceil(elapsed / 50) + 1);
  });

  it('keeps any text of a line intact in the per-line frames it writes at once', async () => {
    const bus = new EventBus();
    hub = newHub(bus);
    const legacy = new FramesSocket();
    hub.add(legacy, { id: 1, admin: true }, { kind: 'session', value: 'a' });
    const odd = ['say "hi"\\ \t tab', 'é ✓ 🚀', '\u001b[31mred\u001b[0m', '</script>\u2028'];
    bus.publishLines({ project_id: 1, task_id: 5, lines: odd.map((output, i) => ({ task_id: 5, seq: i + 1, time: `2026-01-01T00:00:0${i}.000Z`, output })) });
    await flush();
    expect(parsed(legacy)).toEqual(odd.map((output, i) => ({ type: 'log', project_id: 1, task_id: 5, output, time: `2026-01-01T00:00:0${i}.000Z`, seq: i + 1 })));
  });

  it('drops the lines of a socket that fell behind and tells it the gap once it catches up; others get everything', async () => {
    const bus = new EventBus();
    hub = newHub(bus, { maxLagBytes: 1000 });
    const slow = new FakeSocket();
    const fast = new FakeSocket();
    hub.add(slow, { id: 1, admin: true }, { kind: 'session', value: 'a' }, true).subscribe(5);
    hub.add(fast, { id: 1, admin: true }, { kind: 'session', value: 'b' }, true).subscribe(5);
    bus.publishLines(lines(5, 1, 10));
    await flush();
    slow.bufferedAmount = 5000;
    bus.publishLines(lines(5, 11, 10));
    await new Promise((r) => setTimeout(r, 60));
    bus.publishLines(lines(5, 21, 10));
    await new Promise((r) => setTimeout(r, 60));
    expect(parsed(slow)).toHaveLength(1);
    slow.bufferedAmount = 0;
    await new Promise((r) => setTimeout(r, 80));
    expect(parsed(slow)[1]).toEqual({ type: 'gap', project_id: 1, task_id: 5, from_seq: 11, to_seq: 30 });
    expect(slow.closedWith).toBeNull();
    const fastSeqs = parsed(fast).flatMap((m) => (m.type === 'logs' ? m.lines.map((_, i) => m.from_seq + i) : []));
    expect(fastSeqs).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
  });

  it('sends an update at once, after the lines gathered for its task, never behind the batch timer', async () => {
    const bus = new EventBus();
    hub = newHub(bus, { batchMs: 10_000 });
    const watcher = new FakeSocket();
    hub.add(watcher, { id: 1, admin: true }, { kind: 'session', value: 'a' }, true).subscribe(5);
    bus.publishLines(lines(5, 1, 2));
    bus.publishLines(lines(5, 3, 2));
    bus.publish({ type: 'update', project_id: 1, task_id: 5, status: 'success', template_id: 1, start: null, end: null, version: null });
    await flush();
    expect(parsed(watcher).map((m) => m.type)).toEqual(['logs', 'logs', 'update']);
  });

  it('sends nothing of a project the user may not see', async () => {
    const bus = new EventBus();
    hub = new RealtimeHub(bus, async (projectId) => projectId === 1, async () => ({ id: 3, admin: false }), { batchMs: 50 });
    const member = new FakeSocket();
    const conn = hub.add(member, { id: 3, admin: false }, { kind: 'session', value: 'm' }, true);
    conn.subscribe(5);
    conn.subscribe(9);
    bus.publishLines(lines(5, 1, 2, 1));
    bus.publishLines(lines(9, 1, 2, 2));
    await flush();
    expect(parsed(member).map((m) => m.task_id)).toEqual([5]);
  });
});
