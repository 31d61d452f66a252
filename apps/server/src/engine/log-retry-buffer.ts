import type { LogLine } from './ports.js';

export const DEFAULT_LOG_RETRY_BUFFER_BYTES = 64 * 1024 * 1024;

/**
 * The memory one node lends to log lines that wait to be stored, across all its tasks (one
 * instance per server process). While the database refuses writes, lines wait (and are retried
 * in order) up to this bound; past it a task's oldest waiting lines are dropped and counted
 * rather than the node's memory growing without end or the task hanging on a full pipe.
 */
export class LogRetryBuffer {
  private used = 0;

  constructor(readonly limitBytes: number = DEFAULT_LOG_RETRY_BUFFER_BYTES) {}

  get bytes(): number {
    return this.used;
  }

  get over(): boolean {
    return this.used > this.limitBytes;
  }

  /**
   * What to free to get back under the bound with a tenth of it to spare, so that lines are
   * dropped (and the waiting ones renumbered) in chunks, not one at a time.
   */
  excess(): number {
    return this.used > this.limitBytes ? this.used - Math.floor(this.limitBytes * 0.9) : 0;
  }

  hold(bytes: number): void {
    this.used += bytes;
  }

  release(bytes: number): void {
    this.used = Math.max(0, this.used - bytes);
  }
}

/** About what a waiting line costs in memory: its text (two bytes a character) and the row object. */
export function lineBytes(l: LogLine): number {
  return l.output.length * 2 + 96;
}

/** The one line that stands for lines dropped while the database (or, for a runner, the server) could not take them. */
export function droppedLinesText(count: number, limitBytes: number, by: 'database' | 'server' = 'database'): string {
  const mb = Math.round(limitBytes / (1024 * 1024));
  const where = by === 'database' ? "the database could not store them and this node's log retry buffer" : "the server could not take them and this runner's log retry buffer";
  return `${count.toLocaleString('en')} line${count === 1 ? '' : 's'} of output dropped here: ${where} (${mb} MB) was full.`;
}

/** A waiting line's number and text, as both the server's and a runner's log keep them. */
interface Numbered {
  seq: number;
  output: string;
}

/** The line standing for dropped lines while it still waits at the head of the queue, and how many it counts. */
export interface DropNotice<T extends Numbered> {
  line: T;
  count: number;
}

/**
 * Past the retry buffer's bound: drops the oldest lines of `waiting` (lines never tried yet, so
 * never stored nor seen by anyone) until the buffer has room again, puts one line saying how many
 * in their place (or updates the one already there), and renumbers the lines behind it, so the
 * log stays gap-free as readers and the console expect. Changes `waiting` in place; answers the
 * notice now at its head and how many lines it dropped this time (null: nothing to drop).
 */
export function shedOldest<T extends Numbered>(
  waiting: T[],
  notice: DropNotice<T> | null,
  buffer: LogRetryBuffer,
  bytesOf: (l: T) => number,
  makeNotice: (seq: number, count: number) => T,
): { notice: DropNotice<T>; dropped: number; lastSeq: number } | null {
  const head = notice && waiting[0] === notice.line ? notice : null;
  const from = head ? 1 : 0;
  const need = buffer.excess();
  let to = from;
  let freed = 0;
  while (to < waiting.length && freed < need) freed += bytesOf(waiting[to++]!);
  const dropped = to - from;
  if (dropped === 0) return null;
  const first = waiting[0]!.seq;
  for (const l of waiting.splice(0, to)) buffer.release(bytesOf(l));
  const count = (head?.count ?? 0) + dropped;
  const line = makeNotice(first, count);
  waiting.unshift(line);
  buffer.hold(bytesOf(line));
  let seq = first;
  for (let i = 1; i < waiting.length; i++) waiting[i]!.seq = ++seq;
  return { notice: { line, count }, dropped, lastSeq: seq };
}

/** Delays between tries of a write the database refused: doubling from `firstMs` up to `maxMs`. */
export interface Backoff {
  firstMs: number;
  maxMs: number;
}

// At most half a second between tries: once the database is back, a stopped task ends within that.
export const DEFAULT_BACKOFF: Backoff = { firstMs: 100, maxMs: 500 };

export function backoffDelay(b: Backoff, failures: number): number {
  return Math.min(b.maxMs, b.firstMs * 2 ** Math.min(Math.max(failures - 1, 0), 20));
}

/** Waits out a backoff without keeping the process alive: a retry loop must not hold up its exit. */
export function backoffSleep(b: Backoff, failures: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, backoffDelay(b, failures)).unref());
}
