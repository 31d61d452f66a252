import type { RunnerLogBody } from '@gantry/contracts';
import { describe, expect, it } from 'vitest';
import { LogRetryBuffer } from '../engine/log-retry-buffer.js';
import { RemoteLog } from './remote-log.js';
import { RunnerHttpError, type RunnerServer } from './server-client.js';

/** A server that answers 503 while `down` (a restart, its database away) and stores what it takes. */
class FakeServer implements RunnerServer {
  lines: RunnerLogBody['lines'] = [];
  calls = 0;
  down = false;
  answer: number | null = null;
  poll(): never {
    throw new Error('not used');
  }
  status(): Promise<void> {
    return Promise.resolve();
  }
  log(_taskId: number, body: RunnerLogBody): Promise<void> {
    this.calls += 1;
    if (this.answer) return Promise.reject(new RunnerHttpError(this.answer, `log: ${this.answer}`));
    if (this.down) return Promise.reject(new RunnerHttpError(503, 'log: 503 The database is unreachable'));
    this.lines.push(...body.lines);
    return Promise.resolve();
  }
}

const tick = (ms = 0) => new Promise((r) => setTimeout(r, ms));
const fast = { backoff: { firstMs: 1, maxMs: 5 } };
const seqs = (s: FakeServer) => s.lines.map((l) => l.seq);
const oneTo = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

describe('RemoteLog', () => {
  it('sends a batch the server could not take again until it does: every line once, in order, however long it takes', async () => {
    const server = new FakeServer();
    server.down = true;
    const log = new RemoteLog(server, 5, undefined, undefined, { ...fast, retryBuffer: new LogRetryBuffer() });
    for (let i = 1; i <= 10; i++) log.write(`line ${i}`);
    const synced = log.sync();
    await tick(60);
    // Past the five tries it once gave up after.
    expect(server.calls).toBeGreaterThan(6);
    for (let i = 11; i <= 20; i++) log.write(`line ${i}`);
    server.down = false;
    await synced;
    await log.sync();
    expect(seqs(server)).toEqual(oneTo(20));
    expect(server.lines.map((l) => l.output)).toEqual(oneTo(20).map((i) => `line ${i}`));
    expect(log.lost).toBe(0);
  });

  it('past the retry buffer drops the oldest unsent lines: one line says how many, numbers stay gap-free, the loss is counted', async () => {
    const server = new FakeServer();
    server.down = true;
    const retryBuffer = new LogRetryBuffer(32 * 1024);
    const log = new RemoteLog(server, 5, undefined, undefined, { ...fast, retryBuffer });
    log.write('first');
    const first = log.sync();
    await tick(5);
    for (let i = 1; i <= 1000; i++) log.write(`out ${i} ${'y'.repeat(40)}`);
    expect(retryBuffer.bytes).toBeLessThanOrEqual(32 * 1024);
    server.down = false;
    await first;
    await log.sync();
    const notices = server.lines.filter((l) => l.output.includes('dropped here'));
    expect(notices).toHaveLength(1);
    expect(notices[0]!.output).toMatch(/the server could not take them/);
    const kept = server.lines.filter((l) => l.output.startsWith('out ')).length;
    expect(log.lost).toBeGreaterThan(0);
    expect(kept + log.lost).toBe(1000);
    expect(server.lines.at(-1)!.output).toMatch(/^out 1000 /);
    expect(seqs(server)).toEqual(oneTo(server.lines.length));
    expect(retryBuffer.bytes).toBe(0);
  });

  it('stops at once when the server says the task has ended', async () => {
    const server = new FakeServer();
    server.answer = 409;
    let ended = 0;
    const log = new RemoteLog(server, 5, undefined, () => ended++, fast);
    log.write('one');
    await log.sync();
    log.write('two');
    await log.sync();
    expect(server.calls).toBe(1);
    expect(ended).toBe(1);
  });

  it('does not retry a refusal a retry cannot change, and counts those lines as lost', async () => {
    const server = new FakeServer();
    server.answer = 400;
    const log = new RemoteLog(server, 5, undefined, undefined, fast);
    log.write('one');
    log.write('two');
    await log.sync();
    expect(server.calls).toBe(1);
    expect(log.lost).toBe(2);
  });
});
