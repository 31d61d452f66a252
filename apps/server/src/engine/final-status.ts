import { backoffSleep, DEFAULT_BACKOFF, type Backoff } from './log-retry-buffer.js';
import type { LogStorageReport } from './log-sink.js';
import { isDiskFull } from './storage-errors.js';

export type FinalStatus = 'success' | 'error' | 'stopped' | 'rejected';

/** What a write that was tried until it landed went through. */
export interface Persisted<T> {
  value: T;
  /** How long the write was refused (ms); 0 when the first try landed. */
  troubleMs: number;
  diskFull: boolean;
}

/**
 * Tries `write` until it resolves, waiting with backoff between tries; never gives up while the
 * process lives (a run's final status must land, or the task would stay `running` for good).
 * `write` is told whether the disk was full on an earlier try, so it may store a different value.
 */
export async function untilStored<T>(write: (diskFull: boolean) => Promise<T>, backoff: Backoff = DEFAULT_BACKOFF): Promise<Persisted<T>> {
  let failures = 0;
  let since: number | null = null;
  let diskFull = false;
  for (;;) {
    try {
      const value = await write(diskFull);
      return { value, troubleMs: since === null ? 0 : Date.now() - since, diskFull };
    } catch (e) {
      failures += 1;
      since ??= Date.now();
      if (isDiskFull(e)) diskFull = true;
      await backoffSleep(backoff, failures);
    }
  }
}

const seconds = (ms: number) => `${Math.max(1, Math.round(ms / 1000))} s`;

/**
 * The status a run ends with once what storing its log went through is weighed, and the lines
 * saying why: lines dropped, or a disk that filled, never leave a clean `success`; an outage that
 * lost nothing is only told.
 */
export function storageVerdict(status: FinalStatus, log: LogStorageReport): { status: FinalStatus; lines: string[] } {
  const failed: FinalStatus = status === 'success' ? 'error' : status;
  const marked = status === 'success' ? '; the task is marked as failed' : '';
  const why = log.diskFull ? `its disk was full for about ${seconds(log.troubleMs)}` : `it refused writes for about ${seconds(log.troubleMs)}`;
  if (log.dropped > 0) {
    const n = log.dropped.toLocaleString('en');
    return { status: failed, lines: [`${n} line${log.dropped === 1 ? '' : 's'} of this task's output could not be stored and were dropped (the database ${why})${marked}.`] };
  }
  if (log.diskFull) return { status: failed, lines: [`The database's disk was full: this task's log could not be stored for about ${seconds(log.troubleMs)} (no line was lost)${marked}.`] };
  if (log.troubleMs > 0) return { status, lines: [`The database could not store this task's log for about ${seconds(log.troubleMs)}; every line was kept and stored once it was back.`] };
  return { status, lines: [] };
}

/** The line told after a final status that took more than one try to store. */
export function finalStatusTroubleLine(write: Persisted<unknown>, movedTo: FinalStatus, wanted: FinalStatus): string {
  const why = write.diskFull ? "the database's disk was full" : 'the database refused writes';
  const marked = movedTo !== wanted ? '; the task is marked as failed' : '';
  return `The final status could not be stored for about ${seconds(write.troubleMs)} (${why}); it was stored once the database took it${marked}.`;
}
