import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../config/config.js';
import { Drain, RECORD_WAIT_MS, SHUTDOWN_LINE, STOP_GRACE_MS } from './drain.js';
import { LocalRuns } from './local-runs.js';

/** A run that records what it is told and ends when `end` is called (or on SIGTERM/SIGKILL if it obeys). */
function fakeRun(runs: LocalRuns, id: number, obeys: Array<'stop' | 'kill'> = ['kill']) {
  const told: string[] = [];
  let end!: () => void;
  const done = new Promise<void>((r) => (end = r));
  runs.track(id, done);
  runs.attach(id, {
    note: (l) => told.push(`note: ${l}`),
    control: (a) => {
      told.push(a);
      if (obeys.includes(a)) end();
    },
  });
  return { told, end };
}

const drainOf = (runs: LocalRuns, o: Partial<ConstructorParameters<typeof Drain>[0]> = {}) => {
  let claiming = true;
  const drain = new Drain({ stopClaiming: () => (claiming = false), runs, timeoutMs: 200, graceMs: 100, recordWaitMs: 200, ...o });
  return { drain, claiming: () => claiming };
};

describe('Drain', () => {
  it('stops claiming and ends at once when nothing runs', async () => {
    const { drain, claiming } = drainOf(new LocalRuns());
    expect(drain.active).toBe(false);
    expect(await drain.run()).toEqual({ finished: 0, stopped: 0, unrecorded: 0 });
    expect(drain.active).toBe(true);
    expect(claiming()).toBe(false);
  });

  it('waits for a task that ends within the timeout and signals nothing', async () => {
    const runs = new LocalRuns();
    const run = fakeRun(runs, 1);
    setTimeout(run.end, 50);
    const { drain } = drainOf(runs);
    expect(await drain.run()).toEqual({ finished: 1, stopped: 0, unrecorded: 0 });
    expect(run.told).toEqual([]);
  });

  it('after the timeout: the line, then SIGTERM; a task that ends on it is not killed', async () => {
    const runs = new LocalRuns();
    const run = fakeRun(runs, 1, ['stop']);
    const { drain } = drainOf(runs);
    const t0 = Date.now();
    expect(await drain.run()).toEqual({ finished: 0, stopped: 1, unrecorded: 0 });
    expect(Date.now() - t0).toBeGreaterThanOrEqual(190);
    expect(run.told).toEqual([`note: ${SHUTDOWN_LINE}`, 'stop']);
  });

  it('SIGKILLs what ignores the SIGTERM after the grace, without a second line', async () => {
    const runs = new LocalRuns();
    const run = fakeRun(runs, 1, ['kill']);
    expect(await drainOf(runs).drain.run()).toEqual({ finished: 0, stopped: 1, unrecorded: 0 });
    expect(run.told).toEqual([`note: ${SHUTDOWN_LINE}`, 'stop', 'kill']);
  });

  it('a hurry kills at once, with the line, however long the timeout', async () => {
    const runs = new LocalRuns();
    const run = fakeRun(runs, 1, ['kill']);
    const { drain } = drainOf(runs, { timeoutMs: 60_000 });
    const done = drain.run();
    setTimeout(() => drain.hurry(), 20);
    const t0 = Date.now();
    expect(await done).toEqual({ finished: 0, stopped: 1, unrecorded: 0 });
    expect(Date.now() - t0).toBeLessThan(5_000);
    expect(run.told).toEqual([`note: ${SHUTDOWN_LINE}`, 'kill']);
  });

  it('gives up waiting for a run that cannot record its end, and counts it as unrecorded', async () => {
    const runs = new LocalRuns();
    const run = fakeRun(runs, 1, []);
    expect(await drainOf(runs).drain.run()).toEqual({ finished: 0, stopped: 1, unrecorded: 1 });
    expect(run.told).toEqual([`note: ${SHUTDOWN_LINE}`, 'stop', 'kill']);
  });

  it('a run still loading gets the line and the signal once it attaches', () => {
    const runs = new LocalRuns();
    runs.track(7, new Promise(() => undefined));
    runs.signal(7, 'stop', SHUTDOWN_LINE);
    const told: string[] = [];
    runs.attach(7, { note: (l) => told.push(l), control: (a) => told.push(a) });
    expect(told).toEqual([SHUTDOWN_LINE, 'stop']);
  });
});

describe('deploy/gantry.service', () => {
  const unit = fs.readFileSync(path.resolve(import.meta.dirname, '../../../../deploy/gantry.service'), 'utf8');
  const value = (key: string) => new RegExp(`^${key}=(.*)$`, 'm').exec(unit)?.[1];

  it('gives the drain its whole timeout, the grace and the final writes before systemd kills', () => {
    const defaultTimeout = loadConfig({ GANTRY_DATA_DIR: '/nonexistent' }).shutdownTimeoutSeconds;
    expect(defaultTimeout).toBe(300);
    const stop = /^(\d+)s$/.exec(value('TimeoutStopSec') ?? '');
    expect(stop).not.toBeNull();
    expect(Number(stop![1]) * 1000).toBeGreaterThanOrEqual(defaultTimeout * 1000 + STOP_GRACE_MS + RECORD_WAIT_MS);
  });

  it('sends SIGTERM to the server only: the tasks get theirs from the server when their time is up', () => {
    expect(value('KillMode')).toBe('mixed');
  });
});
