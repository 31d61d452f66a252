import { afterEach, describe, expect, it } from 'vitest';
import { EventBus, type TaskControl, type TaskFacts } from './bus.js';
import { StoredControls } from './stored-controls.js';

/** A bus whose connection the test takes away and brings back. */
class FlakyBus extends EventBus {
  connected = true;
  private readonly listeners = new Set<() => void>();
  override isConnected(): boolean {
    return this.connected;
  }
  override onReconnect(fn: () => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }
  reconnect(): void {
    this.connected = true;
    for (const fn of this.listeners) fn();
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function until(fn: () => boolean, timeoutMs = 3_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!fn() && Date.now() < deadline) await sleep(5);
}

describe('stop, confirm and reject requests read from the rows while the bus is away', () => {
  let bus: FlakyBus;
  const rows = new Map<number, TaskFacts>();
  let reads = 0;
  let failReads = false;
  const signals: string[] = [];
  const start = (running: number[]) => {
    bus = new FlakyBus();
    bus.onControl((c: TaskControl) => signals.push(`${c.taskId}:${c.action}`));
    return new StoredControls({
      bus,
      runningIds: () => running,
      readTask: async (id) => {
        reads++;
        if (failReads) throw new Error('database unreachable');
        return rows.get(id);
      },
      everyMs: 20,
    });
  };
  afterEach(async () => {
    await bus.close();
    rows.clear();
    signals.length = 0;
    reads = 0;
    failReads = false;
  });

  it('reads nothing while the bus is connected: requests come by the bus then', async () => {
    start([1]);
    rows.set(1, { project_id: 1, status: 'stopping' });
    await sleep(100);
    expect(reads).toBe(0);
    expect(signals).toEqual([]);
  });

  it('while away, signals each running task once what its row asks for, and a force stop after a stop', async () => {
    start([1, 2, 3]);
    rows.set(1, { project_id: 1, status: 'running' });
    rows.set(2, { project_id: 1, status: 'running' });
    rows.set(3, { project_id: 1, status: 'waiting_confirmation' });
    bus.connected = false;
    await sleep(60);
    expect(signals).toEqual([]);
    // A stop and a confirmation made on other nodes: their rows say so.
    rows.set(1, { project_id: 1, status: 'stopping', stop_force: 0 });
    rows.set(3, { project_id: 1, status: 'confirmed' });
    await until(() => signals.length >= 2);
    await sleep(60);
    expect(signals.sort()).toEqual(['1:stop', '3:confirm']);
    rows.set(1, { project_id: 1, status: 'stopping', stop_force: 1 });
    await until(() => signals.length >= 3);
    await sleep(60);
    expect(signals.sort()).toEqual(['1:kill', '1:stop', '3:confirm']);
  });

  it('reads again the moment the bus is back, once the database answers; a request the bus already brought is not repeated', async () => {
    const controls = start([1, 2]);
    rows.set(1, { project_id: 1, status: 'stopping' });
    rows.set(2, { project_id: 1, status: 'stopping' });
    // Task 2's stop came by the bus before it went away.
    bus.control({ taskId: 2, action: 'stop' });
    bus.connected = false;
    failReads = true;
    await until(() => reads > 0);
    await sleep(30);
    expect(signals).toEqual(['2:stop']);
    failReads = false;
    bus.reconnect();
    await controls.check();
    expect(signals).toEqual(['2:stop', '1:stop']);
  });

  it('a row it could not read when the bus came back is read again, though the bus is connected now', async () => {
    start([1]);
    rows.set(1, { project_id: 1, status: 'stopping' });
    bus.connected = false;
    failReads = true;
    await sleep(50);
    // The bus is back before the database answers this node's reads.
    bus.reconnect();
    await sleep(50);
    expect(signals).toEqual([]);
    failReads = false;
    await until(() => signals.length > 0);
    expect(signals).toEqual(['1:stop']);
    await sleep(30);
    const readsSince = reads;
    await sleep(100);
    // Everything read: no more reads while the bus is connected.
    expect(reads).toBe(readsSince);
  });
});
