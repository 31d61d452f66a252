import { describe, expect, it } from 'vitest';
import { storageVerdict, untilStored } from './final-status.js';

const clean = { dropped: 0, troubleMs: 0, diskFull: false };

describe('storageVerdict', () => {
  it('leaves a run whose log was stored without trouble as it is, without a line', () => {
    expect(storageVerdict('success', clean)).toEqual({ status: 'success', lines: [] });
  });

  it('keeps the success of a run whose log waited out an outage without losing a line, and says so', () => {
    const v = storageVerdict('success', { ...clean, troubleMs: 1600 });
    expect(v.status).toBe('success');
    expect(v.lines).toEqual([expect.stringMatching(/could not store this task's log for about 2 s; every line was kept/)]);
  });

  it('fails a run that lost lines, with a line saying how many; a failure or a stop stays what it was', () => {
    const v = storageVerdict('success', { dropped: 1234, troubleMs: 30_000, diskFull: false });
    expect(v.status).toBe('error');
    expect(v.lines[0]).toMatch(/^1,234 lines of this task's output could not be stored and were dropped .*marked as failed\.$/);
    expect(storageVerdict('stopped', { dropped: 1, troubleMs: 5000, diskFull: false }).status).toBe('stopped');
    expect(storageVerdict('error', { dropped: 1, troubleMs: 5000, diskFull: false }).lines[0]).not.toMatch(/marked as failed/);
  });

  it('fails a run whose log met a full disk even when no line was lost', () => {
    const v = storageVerdict('success', { dropped: 0, troubleMs: 4000, diskFull: true });
    expect(v.status).toBe('error');
    expect(v.lines[0]).toMatch(/disk was full.*no line was lost.*marked as failed/);
  });
});

describe('untilStored', () => {
  it('tries again with backoff until the write lands, and says how long it failed and whether the disk was full', async () => {
    let calls = 0;
    const seen: boolean[] = [];
    const r = await untilStored(
      async (diskFull) => {
        seen.push(diskFull);
        calls += 1;
        if (calls === 1) throw Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
        if (calls < 4) throw new Error('connection refused');
        return 'stored';
      },
      { firstMs: 5, maxMs: 10 },
    );
    expect(r.value).toBe('stored');
    expect(calls).toBe(4);
    expect(seen).toEqual([false, true, true, true]);
    expect(r.diskFull).toBe(true);
    expect(r.troubleMs).toBeGreaterThanOrEqual(15);
  });
});
