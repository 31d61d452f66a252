import type { LocalRuns } from './local-runs.js';

/** The line a task stopped by a shutdown ends its log with (before its trap's own lines). */
export const SHUTDOWN_LINE = 'Server shutting down: the task was stopped.';

/** SIGTERM first, so a script's trap runs; what is still there this long after gets SIGKILL. */
export const STOP_GRACE_MS = 5_000;
/** How long stopped runs get to store their last lines and final status before the process goes anyway. */
export const RECORD_WAIT_MS = 10_000;
/** The same after a second signal, which asks for an exit now. */
export const HURRIED_RECORD_WAIT_MS = 2_000;

export interface DrainDeps {
  /** Stops claiming new tasks (the dispatcher's close); waiting ones are left to other nodes. */
  stopClaiming(): void;
  runs: LocalRuns;
  /** GANTRY_SHUTDOWN_TIMEOUT_SECONDS, in ms: how long running tasks may go on to their end. */
  timeoutMs: number;
  graceMs?: number;
  recordWaitMs?: number;
  /** Gantry's own lines for the server's log (what the drain waits for, what it stopped). */
  say?(line: string): void;
}

/** What a drain ended with. */
export interface DrainResult {
  /** Tasks that ended by themselves within the timeout. */
  finished: number;
  /** Tasks it stopped (SIGTERM, or SIGKILL after a second signal or the grace). */
  stopped: number;
  /** Runs that had not stored their end when the process had to go (the next start fails them). */
  unrecorded: number;
}

/**
 * A graceful stop of this node's task engine: stop claiming, let the running tasks finish up to
 * the timeout, then SIGTERM what is left with a line saying why (so each script's trap runs and
 * the task is recorded `stopped`), SIGKILL after a short grace, and wait a bounded time for the
 * runs to store their end. `hurry` (a second SIGTERM or SIGINT) cuts every wait: SIGKILL now.
 */
export class Drain {
  private started = false;
  private hurried = false;
  private readonly hurryWaiters = new Set<() => void>();

  constructor(private readonly d: DrainDeps) {}

  /** True from the first signal on: the node takes no new task (and is not ready for traffic). */
  get active(): boolean {
    return this.started;
  }

  /** Drains; settles once every run ended, or the wait for their records ran out. */
  async run(): Promise<DrainResult> {
    this.started = true;
    const { runs } = this.d;
    this.d.stopClaiming();
    const atStart = runs.ids();
    if (atStart.length) {
      this.d.say?.(`Shutting down: waiting up to ${Math.round(this.d.timeoutMs / 1000)} s for ${atStart.length} running task(s) to finish`);
      await this.until(runs.whenIdle(), this.d.timeoutMs);
    }
    const left = runs.ids();
    const termed = new Set<number>();
    if (left.length && !this.hurried) {
      this.d.say?.(`Shutting down: stopping ${left.length} task(s) still running (SIGTERM, SIGKILL after ${Math.round((this.d.graceMs ?? STOP_GRACE_MS) / 1000)} s)`);
      for (const id of left) {
        runs.signal(id, 'stop', SHUTDOWN_LINE);
        termed.add(id);
      }
      await this.until(runs.whenIdle(), this.d.graceMs ?? STOP_GRACE_MS);
    }
    const stubborn = runs.ids();
    for (const id of stubborn) runs.signal(id, 'kill', termed.has(id) ? undefined : SHUTDOWN_LINE);
    if (stubborn.length) {
      const bound = this.hurried ? HURRIED_RECORD_WAIT_MS : (this.d.recordWaitMs ?? RECORD_WAIT_MS);
      await this.until(runs.whenIdle(), bound, false);
    }
    const stopped = new Set([...left, ...stubborn]);
    return { finished: atStart.filter((id) => !stopped.has(id)).length, stopped: stopped.size, unrecorded: runs.size };
  }

  /** A second signal: what still runs is killed now; the drain ends once the runs recorded it (briefly bounded). */
  hurry(): void {
    this.hurried = true;
    for (const w of this.hurryWaiters) w();
  }

  /** Waits for `p` at most `ms`; a hurry ends the wait too unless `hurriable` is false. */
  private async until(p: Promise<void>, ms: number, hurriable = true): Promise<void> {
    if (hurriable && this.hurried) return;
    let timer: NodeJS.Timeout | undefined;
    let wake: (() => void) | undefined;
    await Promise.race([
      p,
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, ms);
        if (hurriable) {
          wake = resolve;
          this.hurryWaiters.add(resolve);
        }
      }),
    ]);
    clearTimeout(timer);
    if (wake) this.hurryWaiters.delete(wake);
  }
}
