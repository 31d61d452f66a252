import { describe, expect, it } from 'vitest';
import { systemClock } from '../platform/clock.js';
import { EventBus, type LogBatch } from '../realtime/bus.js';
import { LogRetryBuffer } from './log-retry-buffer.js';
import { LogSink, type LogLine, type LogStore } from './log-sink.js';

/** A store whose writes finish when the test says so, recording what was stored and when. */
class SlowStore implements LogStore {
  stored: LogLine[] = [];
  calls = 0;
  private release: Array<() => void> = [];
  constructor(private manual = false) {}
  appendOutput(lines: LogLine[]): Promise<void> {
    this.calls += 1;
    const done = () => {
      this.stored.push(...lines);
    };
    if (!this.manual) {
      done();
      return Promise.resolve();
    }
    return new Promise((resolve) =>
      this.release.push(() => {
        done();
        resolve();
      }),
    );
  }
  /** Finishes every write in flight. */
  releaseAll(): void {
    const r = this.release;
    this.release = [];
    r.forEach((f) => f());
  }
}

const tick = (ms = 0) => new Promise((r) => setTimeout(r, ms));

function sink(store: LogStore, options: ConstructorParameters<typeof LogSink>[6] = {}) {
  const bus = new EventBus();
  const published: LogBatch[] = [];
  bus.onLines((b) => published.push(b));
  return { log: new LogSink(7, 3, store, bus, systemClock, ['s3cret-value'], options), published };
}

describe('LogSink', () => {
  it('publishes a batch only once it is stored, so a read of the log holds every published line', async () => {
    const store = new SlowStore(true);
    const { log, published } = sink(store);
    log.write('first');
    await tick();
    // The first line of an idle sink is written at once, but not published before it is stored.
    expect(store.calls).toBe(1);
    expect(published).toHaveLength(0);
    store.releaseAll();
    await tick();
    expect(published).toHaveLength(1);
    expect(published[0]).toMatchObject({ project_id: 3, task_id: 7, lines: [{ seq: 1, output: 'first' }] });
    for (const b of published) for (const l of b.lines) expect(store.stored.map((s) => s.seq)).toContain(l.seq);
  });

  it('batches a burst (one write for many lines), numbers lines in order and masks secrets', async () => {
    const store = new SlowStore();
    const { log, published } = sink(store);
    log.write('warm-up');
    await tick(60);
    for (let i = 1; i <= 2500; i++) log.write(i === 5 ? 'token s3cret-value here' : `line ${i}`);
    await log.close();
    expect(store.stored.map((l) => l.seq)).toEqual(Array.from({ length: 2501 }, (_, i) => i + 1));
    // 2,500 lines in a burst: a few writes of up to 1,000 lines each (after the warm-up's), not 2,500.
    expect(store.calls).toBeLessThanOrEqual(5);
    expect(store.stored.find((l) => l.seq === 6)!.output).toBe('token ********** here');
    expect(published.flatMap((b) => b.lines.map((l) => l.seq))).toEqual(store.stored.map((l) => l.seq));
  });

  it('replaces NUL characters, which PostgreSQL text cannot hold', async () => {
    const store = new SlowStore();
    const { log } = sink(store);
    log.write('a\u0000b');
    await log.close();
    expect(store.stored[0]!.output).toBe('a\uFFFDb');
  });

  it('keeps at most maxLines lines of output, says once that the rest was dropped, and still takes its own notes', async () => {
    const store = new SlowStore();
    const { log } = sink(store, { maxLines: 100 });
    for (let i = 1; i <= 250; i++) log.write(`out ${i}`);
    log.note('Task #7 finished: success');
    await log.close();
    const outputs = store.stored.map((l) => l.output);
    expect(outputs.filter((o) => o.startsWith('out '))).toHaveLength(100);
    expect(outputs.filter((o) => o.startsWith('Output exceeded 100 lines'))).toHaveLength(1);
    expect(outputs.at(-1)).toBe('Task #7 finished: success');
    expect(store.stored.map((l) => l.seq)).toEqual([...Array(102).keys()].map((i) => i + 1));
  });

  it('reports itself saturated while too many lines wait to be stored, and calls onDrain once they are', async () => {
    const store = new SlowStore(true);
    const { log } = sink(store, { highWater: 1000, lowWater: 100 });
    for (let i = 0; i < 1500; i++) log.write(`x ${i}`);
    expect(log.saturated).toBe(true);
    let drained = false;
    log.onDrain(() => {
      drained = true;
    });
    // One write is in flight (the first line); the rest waits behind it.
    await tick();
    expect(drained).toBe(false);
    store.releaseAll();
    await tick();
    store.releaseAll();
    await tick();
    expect(drained).toBe(true);
    expect(log.saturated).toBe(false);
    const closing = log.close();
    for (let i = 0; i < 5; i++) {
      store.releaseAll();
      await tick();
    }
    await closing;
    expect(store.stored).toHaveLength(1500);
  });
});

/** A store that refuses writes while `down` (or its next `failures` writes), as a database that went away; reads its own last seq. */
class FlakyStore implements LogStore {
  rows: LogLine[] = [];
  calls = 0;
  down = false;
  /** Writes that land but answer an error (a connection cut before the commit was acknowledged). */
  landThenFail = 0;
  constructor(
    private failures = 0,
    private readonly error: () => Error = () => new Error('connection terminated'),
  ) {}
  appendOutput(lines: LogLine[]): Promise<void> {
    this.calls += 1;
    if (this.down || this.failures > 0) {
      this.failures = Math.max(0, this.failures - 1);
      return Promise.reject(this.error());
    }
    this.rows.push(...lines.map((l) => ({ ...l })));
    if (this.landThenFail > 0) {
      this.landThenFail -= 1;
      return Promise.reject(this.error());
    }
    return Promise.resolve();
  }
  lastSeq(): Promise<number> {
    if (this.down) return Promise.reject(this.error());
    return Promise.resolve(this.rows.at(-1)?.seq ?? 0);
  }
}

const fast = { backoff: { firstMs: 1, maxMs: 5 } };
const seqs = (rows: LogLine[]) => rows.map((l) => l.seq);
const oneTo = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

describe('LogSink when the database refuses writes', () => {
  it('keeps a refused batch and stores it once the database is back: every line once, in order, published only after', async () => {
    const store = new FlakyStore(4);
    const { log, published } = sink(store, fast);
    for (let i = 1; i <= 30; i++) log.write(`line ${i}`);
    await log.close();
    expect(store.calls).toBeGreaterThan(4);
    expect(seqs(store.rows)).toEqual(oneTo(30));
    expect(store.rows.map((l) => l.output)).toEqual(oneTo(30).map((i) => `line ${i}`));
    expect(published.flatMap((b) => seqs(b.lines))).toEqual(oneTo(30));
    expect(log.storage).toMatchObject({ dropped: 0, diskFull: false });
    expect(log.storage.troubleMs).toBeGreaterThan(0);
  });

  it('never stores a line twice when a refused write had in fact landed', async () => {
    const store = new FlakyStore();
    store.landThenFail = 2;
    const { log, published } = sink(store, fast);
    log.write('a');
    await tick(20);
    for (let i = 0; i < 50; i++) log.write(`b ${i}`);
    await log.close();
    expect(seqs(store.rows)).toEqual(oneTo(51));
    expect(published.flatMap((b) => seqs(b.lines))).toEqual(oneTo(51));
  });

  it('lines written during the outage wait behind the refused batch and keep their order', async () => {
    const store = new FlakyStore();
    store.down = true;
    const { log } = sink(store, fast);
    log.write('first');
    for (let round = 0; round < 5; round++) {
      await tick(3);
      for (let i = 0; i < 10; i++) log.write(`r${round} ${i}`);
    }
    store.down = false;
    await log.close();
    expect(seqs(store.rows)).toEqual(oneTo(51));
    expect(store.rows[0]!.output).toBe('first');
    expect(store.rows.at(-1)!.output).toBe('r4 9');
  });

  it('past the retry buffer drops the oldest waiting lines: one stored line says how many, numbers stay gap-free, the loss is reported', async () => {
    const store = new FlakyStore();
    store.down = true;
    const retryBuffer = new LogRetryBuffer(64 * 1024);
    const { log } = sink(store, { ...fast, retryBuffer, outagePauseMs: 0 });
    log.write('before the outage');
    await tick(5);
    const written = 2000;
    for (let i = 1; i <= written; i++) log.write(`out ${i} ${'x'.repeat(40)}`);
    expect(retryBuffer.bytes).toBeLessThanOrEqual(64 * 1024);
    store.down = false;
    await log.close();
    const notices = store.rows.filter((l) => l.output.includes('dropped here'));
    expect(notices).toHaveLength(1);
    const dropped = Number(/^([\d,]+) lines/.exec(notices[0]!.output)![1]!.replace(/,/g, ''));
    expect(dropped).toBeGreaterThan(0);
    expect(log.storage.dropped).toBe(dropped);
    const outputs = store.rows.filter((l) => l.output.startsWith('out '));
    // Every line written is either stored or counted, the newest are kept, and in order.
    expect(outputs.length + dropped).toBe(written);
    expect(outputs.at(-1)!.output).toMatch(/^out 2000 /);
    const numbers = outputs.map((l) => Number(l.output.split(' ')[1]));
    expect(numbers).toEqual([...numbers].sort((a, b) => a - b));
    expect(seqs(store.rows)).toEqual(oneTo(store.rows.length));
    expect(store.rows[0]!.output).toBe('before the outage');
    expect(retryBuffer.bytes).toBe(0);
  });

  it('pauses the producer during a short outage, but not past outagePauseMs', async () => {
    const store = new FlakyStore();
    store.down = true;
    // A pause long enough that a loaded machine's 20 ms tick never outlasts it.
    const { log } = sink(store, { ...fast, highWater: 100, lowWater: 10, outagePauseMs: 1500 });
    for (let i = 0; i < 150; i++) log.write(`x ${i}`);
    expect(log.saturated).toBe(true);
    let drained = false;
    log.onDrain(() => {
      drained = true;
    });
    await tick(20);
    expect(drained).toBe(false);
    for (let i = 0; i < 600 && !drained; i++) await tick(10);
    expect(drained).toBe(true);
    expect(log.saturated).toBe(false);
    store.down = false;
    await log.close();
    expect(seqs(store.rows)).toEqual(oneTo(150));
    expect(log.storage.dropped).toBe(0);
  });

  it('tells a full disk apart from an outage', async () => {
    const full = Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
    const store = new FlakyStore(2, () => full);
    const { log } = sink(store, fast);
    log.write('a');
    await log.close();
    expect(seqs(store.rows)).toEqual([1]);
    expect(log.storage).toMatchObject({ dropped: 0, diskFull: true });
  });
});
