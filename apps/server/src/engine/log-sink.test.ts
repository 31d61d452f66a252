import { describe, expect, it } from 'vitest';
import { systemClock } from '../platform/clock.js';
import { EventBus, type LogBatch } from '../realtime/bus.js';
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
