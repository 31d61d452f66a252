import { describe, expect, it } from 'vitest';
import { fencedRunStore, finalWriteOutcome, type OwnedLogStore } from './fencing.js';
import { LocalRuns } from './local-runs.js';
import type { LogLine, TaskRecord, TaskStore } from './ports.js';

const ME = 'node-a';
const line = (seq: number): LogLine => ({ task_id: 1, seq, time: '2026-01-01T00:00:00.000Z', output: `line ${seq}` });

/** One task row in memory, with the conditional writes the real repositories make. */
function fixture(row: Partial<TaskRecord> = {}) {
  const task = { id: 1, status: 'running', node_id: ME, end: null, ...row } as TaskRecord;
  const stored: LogLine[] = [];
  const store = {
    async findById(id: number) {
      return id === task.id ? { ...task } : undefined;
    },
    async transition(id: number, from: readonly string[], to: string, patch: Partial<TaskRecord> = {}, owner?: string) {
      if (id !== task.id || !from.includes(task.status) || (owner !== undefined && task.node_id !== owner)) return false;
      Object.assign(task, patch, { status: to });
      return true;
    },
    async appendOutput(lines: LogLine[]) {
      stored.push(...lines);
    },
  } as unknown as TaskStore;
  const log: OwnedLogStore = {
    async appendOwned(lines, owner) {
      if (task.node_id !== owner || !['running', 'stopping', 'rejected'].includes(task.status)) return false;
      stored.push(...lines);
      return true;
    },
  };
  const runs = new LocalRuns();
  runs.track(1, new Promise(() => undefined));
  const told: string[] = [];
  runs.attach(1, { note: () => undefined, control: (a) => told.push(a) });
  return { task, stored, runs, told, fenced: fencedRunStore(store, log, ME, runs) };
}

describe('fencedRunStore', () => {
  it('stores lines while the task is live and this node’s', async () => {
    const f = fixture();
    await f.fenced.appendOutput([line(1), line(2)]);
    expect(f.stored.map((l) => l.seq)).toEqual([1, 2]);
    expect(f.runs.isLost(1)).toBe(false);
  });

  it('drops the lines of a task failed by another node and kills the run at once', async () => {
    const f = fixture({ status: 'error' });
    await f.fenced.appendOutput([line(3)]);
    expect(f.stored).toEqual([]);
    expect(f.runs.isLost(1)).toBe(true);
    expect(f.told).toEqual(['kill']);
  });

  it('a final write that finds the task failed by another node: not moved, the run is lost (no notification)', async () => {
    const f = fixture();
    Object.assign(f.task, { status: 'error', end: '2026-01-01T00:00:05.000Z' });
    expect(await f.fenced.transition(1, ['running'], 'success', { end: '2026-01-01T00:00:09.000Z' }, ME)).toBe(false);
    expect(f.runs.isLost(1)).toBe(true);
  });

  it('its own final write: later lines (a note about the write) are the run’s and are stored', async () => {
    const f = fixture();
    expect(await f.fenced.transition(1, ['running'], 'success', { end: '2026-01-01T00:00:09.000Z' }, ME)).toBe(true);
    await f.fenced.appendOutput([line(4)]);
    expect(f.stored.map((l) => l.seq)).toEqual([4]);
    expect(f.runs.isLost(1)).toBe(false);
  });

  it('a task rejected while it waited is still the run’s to end', async () => {
    const f = fixture({ status: 'rejected' });
    await f.fenced.appendOutput([line(5)]);
    expect(await f.fenced.transition(1, ['running', 'waiting_confirmation'], 'rejected', { end: 'x' }, ME)).toBe(false);
    expect(f.stored.map((l) => l.seq)).toEqual([5]);
    expect(f.runs.isLost(1)).toBe(false);
  });

  it('status moves that are not final are passed through untouched', async () => {
    const f = fixture({ status: 'error' });
    expect(await f.fenced.transition(1, ['running'], 'waiting_confirmation', {}, ME)).toBe(false);
    expect(f.runs.isLost(1)).toBe(false);
  });
});

describe('finalWriteOutcome', () => {
  const end = '2026-01-01T00:00:09.000Z';
  it('tells a write of this run that landed on an earlier try from one of another node', () => {
    expect(finalWriteOutcome({ node_id: ME, status: 'success', end }, ME, 'success', end)).toBe('written');
    expect(finalWriteOutcome({ node_id: ME, status: 'error', end: '2026-01-01T00:00:05.000Z' }, ME, 'error', end)).toBe('not-owned');
    expect(finalWriteOutcome({ node_id: 'node-b', status: 'success', end }, ME, 'success', end)).toBe('not-owned');
    expect(finalWriteOutcome(undefined, ME, 'success', end)).toBe('not-owned');
    expect(finalWriteOutcome({ node_id: ME, status: 'rejected', end }, ME, 'rejected', 'other')).toBe('ended-by-request');
  });
});
