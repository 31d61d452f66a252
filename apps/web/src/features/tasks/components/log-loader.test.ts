import { LOG_BATCH_MS, type TaskOutputPage, type TaskOutputQuery } from '@gantry/contracts';
import { describe, expect, it, vi } from 'vitest';
import { TaskLogLoader } from './log-loader';

/** A fake output API over `total` lines ("line N"), with `missing` numbers absent, as the server pages them. */
function fakeApi(total: number, missing: number[] = []) {
  const calls: TaskOutputQuery[] = [];
  const fetch = (q: TaskOutputQuery): Promise<TaskOutputPage> => {
    calls.push(q);
    const limit = q.limit ?? 1000;
    let seqs: number[] = [];
    for (let s = q.from_seq ?? 1; s <= Math.min(q.to_seq ?? total, total); s++) if (!missing.includes(s)) seqs.push(s);
    seqs = q.tail ? seqs.slice(-limit) : seqs.slice(0, limit);
    return Promise.resolve({ lines: seqs.map((seq) => ({ task_id: 1, seq, time: 't', output: `line ${seq}` })), last_seq: total || null });
  };
  return { fetch, calls };
}

const opts = { pageSize: 10, debounceMs: 0 };

describe('TaskLogLoader', () => {
  it('opens a finished task on its first page and knows how many rows there are', async () => {
    const api = fakeApi(95);
    const l = new TaskLogLoader(api.fetch, opts);
    await l.open(true);
    expect(l.store.lastSeq).toBe(95);
    expect(l.store.line(1)).toBe('line 1');
    expect(l.store.state(10)).toBe('line');
    expect(l.store.state(11)).toBe('pending');
    expect(api.calls).toEqual([{ from_seq: 1, limit: 10 }]);
  });

  it('opens a running task on its newest page and appends live lines in place', async () => {
    const api = fakeApi(25);
    const l = new TaskLogLoader(api.fetch, opts);
    // A live batch heard before the first page arrived is kept.
    l.onMessage({ type: 'logs', project_id: 1, task_id: 1, from_seq: 26, lines: [{ time: 't', output: 'line 26' }] });
    await l.open(false);
    expect(api.calls).toEqual([{ tail: true, limit: 10 }]);
    expect(l.store.lastSeq).toBe(26);
    expect(l.store.line(16)).toBe('line 16');
    expect(l.store.line(26)).toBe('line 26');
    expect(l.store.state(15)).toBe('pending');
    l.onMessage({ type: 'logs', project_id: 1, task_id: 1, from_seq: 27, lines: [{ time: 't', output: 'a' }, { time: 't', output: 'b' }] });
    expect(l.store.lastSeq).toBe(28);
    expect(l.store.line(28)).toBe('b');
  });

  it('reads the aligned pages of rows that come into view, once each', async () => {
    const api = fakeApi(95);
    const l = new TaskLogLoader(api.fetch, opts);
    await l.open(true);
    await Promise.all([l.loadRange(38, 52), l.loadRange(40, 45)]);
    expect(api.calls.slice(1)).toEqual([
      { from_seq: 51, to_seq: 60, limit: 10 },
      { from_seq: 41, to_seq: 50, limit: 10 },
      { from_seq: 31, to_seq: 40, limit: 10 },
    ]);
    await l.loadRange(31, 60);
    expect(api.calls).toHaveLength(4);
  });

  it('shows numbers missing inside a read range as empty rows, not as rows to read', async () => {
    const api = fakeApi(20, [5, 6]);
    const l = new TaskLogLoader(api.fetch, opts);
    await l.open(true);
    // The first page (10 lines) reaches line 12; 5 and 6 are proven absent, 13 is yet to read.
    expect(l.store.state(5)).toBe('empty');
    expect(l.store.line(12)).toBe('line 12');
    expect(l.store.state(13)).toBe('pending');
  });

  it('reads a gap the socket reports, newest pages first and at most the cap', async () => {
    const api = fakeApi(200);
    const l = new TaskLogLoader(api.fetch, { ...opts, maxGapPages: 2 });
    l.onMessage({ type: 'gap', project_id: 1, task_id: 1, from_seq: 101, to_seq: 200 });
    expect(l.store.lastSeq).toBe(200);
    await new Promise((r) => setTimeout(r, 0));
    expect(api.calls.map((c) => c.from_seq)).toEqual([191, 181]);
  });

  it('catches up from the last line known after a reconnect', async () => {
    const api = fakeApi(30);
    const l = new TaskLogLoader(api.fetch, opts);
    await l.open(false);
    await l.catchUp();
    expect(api.calls[1]).toEqual({ tail: true, limit: 10, from_seq: 31 });
  });

  it('keeps memory bounded by forgetting the pages farthest from the screen', async () => {
    const api = fakeApi(100);
    const l = new TaskLogLoader(api.fetch, { ...opts, maxLines: 30 });
    await l.open(true);
    l.showing(1, 5);
    await l.loadRange(11, 100);
    expect(l.store.size).toBeLessThanOrEqual(30);
    expect(l.store.line(1)).toBe('line 1');
    expect(l.store.state(100)).toBe('pending');
  });
});

describe('TaskLogLoader.showing', () => {
  it('reads rows on screen once they stay, and never waits forever on a view that keeps moving', async () => {
    const api = fakeApi(100);
    const l = new TaskLogLoader(api.fetch, { pageSize: 10, debounceMs: 50 });
    await l.open(false);
    const started = Date.now();
    while (api.calls.length < 2 && Date.now() - started < 2000) {
      l.showing(41, 45);
      await new Promise((r) => setTimeout(r, 10));
    }
    expect(api.calls[1]).toEqual({ from_seq: 41, to_seq: 50, limit: 10 });
    expect(Date.now() - started).toBeLessThan(1000);
  });
});

describe('TaskLogLoader on a task that just started', () => {
  it('reads a just-started task again once its first lines are stored, if they said nothing to it yet', async () => {
    vi.useFakeTimers();
    try {
      // The task's first line was sent before this view subscribed and is not stored yet.
      let stored = 0;
      const calls: TaskOutputQuery[] = [];
      const fetch = (q: TaskOutputQuery): Promise<TaskOutputPage> => {
        calls.push(q);
        const lines = stored ? [{ task_id: 1, seq: 1, time: 't', output: 'Task #1 started' }] : [];
        return Promise.resolve({ lines, last_seq: stored || null });
      };
      const l = new TaskLogLoader(fetch, opts);
      await l.open(false);
      expect(l.store.lastSeq).toBe(0);
      stored = 1;
      await vi.advanceTimersByTimeAsync(2 * LOG_BATCH_MS);
      expect(calls).toEqual([{ tail: true, limit: 10 }, { tail: true, limit: 10, from_seq: 1 }]);
      expect(l.store.line(1)).toBe('Task #1 started');
    } finally {
      vi.useRealTimers();
    }
  });

  it('reads at once the lines before a live batch that this view never got', async () => {
    const api = fakeApi(3);
    const l = new TaskLogLoader(api.fetch, opts);
    await l.open(false);
    expect(l.store.lastSeq).toBe(3);
    // Lines 4 and 5 were said before the view subscribed; 6 comes live.
    l.onMessage({ type: 'logs', project_id: 1, task_id: 1, from_seq: 6, lines: [{ time: 't', output: 'line 6' }] });
    expect(api.calls.slice(1)).toEqual([{ from_seq: 1, to_seq: 10, limit: 10 }]);
  });

  it('reads the end once more when asked while a read of it is out (the task ended meanwhile)', async () => {
    let total = 1;
    const calls: TaskOutputQuery[] = [];
    const answers: Array<() => void> = [];
    const fetch = (q: TaskOutputQuery): Promise<TaskOutputPage> => {
      calls.push(q);
      // Answered with what is stored when the request arrives, sent back only when released.
      const from = q.from_seq ?? 1;
      const lines = [];
      for (let seq = from; seq <= total; seq++) lines.push({ task_id: 1, seq, time: 't', output: `line ${seq}` });
      const page = { lines, last_seq: total };
      return new Promise((resolve) => answers.push(() => resolve(page)));
    };
    const l = new TaskLogLoader(fetch, opts);
    const opened = l.open(false);
    answers.shift()!();
    await opened;
    const first = l.catchUp();
    total = 4;
    const second = l.catchUp();
    answers.shift()!();
    await second;
    await Promise.resolve();
    expect(calls).toHaveLength(3);
    answers.shift()!();
    await first;
    expect(l.store.lastSeq).toBe(4);
    expect(l.store.line(4)).toBe('line 4');
  });

  it('reads the end after its first read when the task ended while that read was out', async () => {
    let total = 1;
    const calls: TaskOutputQuery[] = [];
    let release = () => undefined as void;
    const fetch = (q: TaskOutputQuery): Promise<TaskOutputPage> => {
      calls.push(q);
      const lines = [];
      for (let seq = q.from_seq ?? 1; seq <= total; seq++) lines.push({ task_id: 1, seq, time: 't', output: `line ${seq}` });
      const page = { lines, last_seq: total };
      if (calls.length > 1) return Promise.resolve(page);
      return new Promise((resolve) => (release = () => resolve(page)));
    };
    const l = new TaskLogLoader(fetch, opts);
    const opened = l.open(false);
    // The task prints its last lines and ends before the first page is back; nothing came live.
    total = 3;
    void l.catchUp();
    release();
    await opened;
    expect(calls).toEqual([{ tail: true, limit: 10 }, { tail: true, limit: 10, from_seq: 2 }]);
    expect(l.store.line(3)).toBe('line 3');
  });

  it('reads nothing more for a task that had ended when it was opened', async () => {
    const api = fakeApi(30);
    const l = new TaskLogLoader(api.fetch, opts);
    const opened = l.open(true);
    void l.catchUp();
    await opened;
    expect(api.calls).toEqual([{ from_seq: 1, limit: 10 }]);
  });
});
