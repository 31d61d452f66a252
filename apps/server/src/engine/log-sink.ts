import { LOG_BATCH_LINES, LOG_BATCH_MS } from '@gantry/contracts';
import type { Clock } from '../platform/clock.js';
import type { EventBus } from '../realtime/bus.js';

import { maskSecrets } from '../platform/mask-secrets.js';
import { backoffSleep, DEFAULT_BACKOFF, droppedLinesText, lineBytes, LogRetryBuffer, shedOldest, type Backoff, type DropNotice } from './log-retry-buffer.js';
import type { LogLine, LogStore } from './ports.js';
import { isDiskFull } from './storage-errors.js';

export type { LogLine, LogStore };
export { maskSecrets };

/**
 * Lets a log consumer slow its producer down: the process launcher stops reading the child's
 * stdout while `saturated` and resumes on `onDrain`, so the pipe (and then the child) waits.
 */
export interface OutputFlow {
  readonly saturated: boolean;
  /** Calls `fn` once, when the backlog has fallen back below the low-water mark. */
  onDrain(fn: () => void): void;
}

/**
 * A store that can say how far a task's log got: after a write that failed, the sink asks before
 * writing the batch again, since a failure (a connection cut before the commit was acknowledged)
 * may hide a write that did land, and a line must never be stored twice.
 */
export interface LogSeqReader {
  lastSeq(taskId: number): Promise<number>;
}

export interface LogSinkOptions {
  /** Lines of process output kept per task; past it one line says the rest was dropped. */
  maxLines?: number;
  /** Store (and then publish) a batch after this many ms or lines, whichever comes first. */
  batchMs?: number;
  batchLines?: number;
  /** Lines waiting to be stored at which the producer is paused, and below which it resumes. */
  highWater?: number;
  lowWater?: number;
  /** The node's memory for lines waiting to be stored (shared by all its tasks). */
  retryBuffer?: LogRetryBuffer;
  /** Delays between tries of a write the database refused. */
  backoff?: Backoff;
  /**
   * How long the producer may stay paused while the database refuses writes; after that it reads
   * on, its lines wait in the retry buffer, and past the buffer's bound the oldest are dropped.
   */
  outagePauseMs?: number;
}

/** What storing this task's log went through: the run's outcome and last lines depend on it. */
export interface LogStorageReport {
  /** Lines dropped because the database refused them longer than the retry buffer could hold. */
  dropped: number;
  /** How long writes were refused, in all (ms). */
  troubleMs: number;
  /** A refusal said the database's disk was full. */
  diskFull: boolean;
}

/** Rows per store call: big enough to amortise a round trip, small enough to publish steadily. */
const MAX_WRITE = 5000;
export const DEFAULT_MAX_TASK_LOG_LINES = 5_000_000;

/**
 * The log pipeline of one task: each line is masked for known secret values, numbered and
 * buffered; a batch is stored (after LOG_BATCH_MS or LOG_BATCH_LINES, or at once when the sink
 * was idle, so the first line goes out without waiting) and only then published on the bus, so
 * every read of the stored log holds every line a socket has seen. While too many lines wait to
 * be stored the sink reports itself saturated and the launcher pauses the child's output.
 *
 * A batch the database refuses is kept and tried again, with backoff, before any later line, so
 * the log is stored in order without a gap or a duplicate once the database is back. Lines wait
 * in the node's retry buffer; past its bound this task's oldest waiting lines give way to one
 * line saying how many were dropped, and `storage.dropped` tells the run.
 */
export class LogSink implements OutputFlow {
  private seq = 0;
  private outputLines = 0;
  private dropped = false;
  /** Lines never tried yet: they may still be dropped and renumbered. */
  private pending: LogLine[] = [];
  /** A batch the store refused: tried again as it is (its lines may have landed), before anything else. */
  private retrying: LogLine[] | null = null;
  private timer: NodeJS.Timeout | undefined;
  private loop: Promise<void> | null = null;
  private lastFlush = -Infinity;
  private drainWaiters: Array<() => void> = [];
  private failures = 0;
  private failingSince: number | null = null;
  private troubleMs = 0;
  private diskFull = false;
  private lost = 0;
  /** The line saying how many were dropped, while it waits at the head of `pending`. */
  private dropNotice: DropNotice<LogLine> | null = null;
  private readonly secrets: string[];
  private readonly maxLines: number;
  private readonly batchMs: number;
  private readonly batchLines: number;
  private readonly highWater: number;
  private readonly lowWater: number;
  private readonly buffer: LogRetryBuffer;
  private readonly backoff: Backoff;
  private readonly outagePauseMs: number;

  constructor(
    private readonly taskId: number,
    private readonly projectId: number,
    private readonly store: LogStore & Partial<LogSeqReader>,
    private readonly bus: EventBus,
    private readonly clock: Clock,
    secrets: string[],
    options: LogSinkOptions = {},
  ) {
    // Longest first, so a secret that contains another is masked whole.
    this.secrets = [...new Set(secrets.filter((s) => s.length >= 3))].sort((a, b) => b.length - a.length);
    this.maxLines = options.maxLines ?? DEFAULT_MAX_TASK_LOG_LINES;
    this.batchMs = options.batchMs ?? LOG_BATCH_MS;
    this.batchLines = options.batchLines ?? LOG_BATCH_LINES;
    this.highWater = options.highWater ?? 20_000;
    this.lowWater = options.lowWater ?? 5_000;
    this.buffer = options.retryBuffer ?? new LogRetryBuffer();
    this.backoff = options.backoff ?? DEFAULT_BACKOFF;
    this.outagePauseMs = options.outagePauseMs ?? 10_000;
  }

  /** Adds a value to mask from now on (e.g. a password read during the run). */
  addSecret(value: string): void {
    if (value.length >= 3 && !this.secrets.includes(value)) {
      this.secrets.push(value);
      this.secrets.sort((a, b) => b.length - a.length);
    }
  }

  get saturated(): boolean {
    // A database down for long must not hold the task's process forever: it reads on, and the
    // retry buffer's bound (not the pipe) limits what waits.
    if (this.outageOutlastedPause()) return false;
    return this.pending.length + (this.retrying?.length ?? 0) >= this.highWater;
  }

  onDrain(fn: () => void): void {
    if (!this.saturated) fn();
    else this.drainWaiters.push(fn);
  }

  /** What storing the log went through so far (an outage still going on counts up to now). */
  get storage(): LogStorageReport {
    const ongoing = this.failingSince === null ? 0 : Date.now() - this.failingSince;
    return { dropped: this.lost, troubleMs: this.troubleMs + ongoing, diskFull: this.diskFull };
  }

  /** A line of the task's output; past the line cap it is dropped (once said so in the log). */
  write(raw: string): void {
    if (this.outputLines >= this.maxLines) {
      if (!this.dropped) {
        this.dropped = true;
        this.push(`Output exceeded ${this.maxLines.toLocaleString('en')} lines; the rest of it was dropped (the task keeps running).`);
      }
      return;
    }
    this.outputLines += 1;
    this.push(raw);
  }

  /** A line of Gantry's own (start, finish, errors): kept whatever the line cap. */
  note(raw: string): void {
    this.push(raw);
  }

  /**
   * Stores what is buffered now, e.g. before a status change, so readers see the log up to it.
   * While the database refuses writes this waits until it takes them.
   */
  async sync(): Promise<void> {
    this.startFlush();
    while (this.loop) await this.loop;
  }

  /** Stores what is buffered and waits for every write so far (however long the database is away). */
  async close(): Promise<void> {
    await this.sync();
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private push(raw: string): void {
    // PostgreSQL text cannot hold NUL; SQLite could, but both engines must store the same line.
    const text = raw.includes('\u0000') ? raw.replaceAll('\u0000', '\uFFFD') : raw;
    const line = { task_id: this.taskId, seq: ++this.seq, time: this.timeNow(), output: maskSecrets(text, this.secrets) };
    this.pending.push(line);
    this.buffer.hold(lineBytes(line));
    if (this.failingSince !== null && this.buffer.over) this.shed();
    if (this.loop) return; // the write loop takes it with the next batch
    const sinceLast = Date.now() - this.lastFlush;
    if (this.pending.length >= this.batchLines || sinceLast >= this.batchMs) this.startFlush();
    else this.timer ??= setTimeout(() => this.startFlush(), this.batchMs - sinceLast);
  }

  /** Past the retry buffer's bound while the database refuses writes: this task's oldest waiting lines give way to one line saying how many. */
  private shed(): void {
    const r = shedOldest(this.pending, this.dropNotice, this.buffer, lineBytes, (seq, count) => ({
      task_id: this.taskId,
      seq,
      time: this.timeNow(),
      output: droppedLinesText(count, this.buffer.limitBytes),
    }));
    if (!r) return;
    this.dropNotice = r.notice;
    this.lost += r.dropped;
    this.seq = r.lastSeq;
  }

  private lastMs = NaN;
  private lastIso = '';

  /** The time text for a line; formatted once per millisecond (a burst has thousands of lines a millisecond). */
  private timeNow(): string {
    const now = this.clock.now();
    const ms = now.getTime();
    if (ms !== this.lastMs) {
      this.lastMs = ms;
      this.lastIso = now.toISOString();
    }
    return this.lastIso;
  }

  private startFlush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.loop || (this.pending.length === 0 && !this.retrying)) return;
    this.loop = this.writeLoop().finally(() => {
      this.loop = null;
      // Lines that arrived during the last write and found the loop busy.
      if (this.pending.length) this.startFlush();
    });
  }

  private async writeLoop(): Promise<void> {
    while (this.retrying || this.pending.length) {
      this.lastFlush = Date.now();
      const batch = this.retrying ?? this.takeBatch();
      try {
        await this.storeBatch(batch, this.retrying !== null);
      } catch (e) {
        this.failed(batch, e);
        await backoffSleep(this.backoff, this.failures);
        continue;
      }
      this.stored(batch);
    }
  }

  private takeBatch(): LogLine[] {
    if (this.pending.length <= MAX_WRITE) {
      const batch = this.pending;
      this.pending = [];
      return batch;
    }
    const batch = this.pending.slice(0, MAX_WRITE);
    this.pending = this.pending.slice(MAX_WRITE);
    return batch;
  }

  private async storeBatch(batch: LogLine[], again: boolean): Promise<void> {
    let rest = batch;
    if (again && this.store.lastSeq) {
      // Batches land whole or not at all, in order: what the log holds says what is left to write.
      const last = await this.store.lastSeq(this.taskId);
      if (last >= batch[0]!.seq) rest = batch.filter((l) => l.seq > last);
    }
    if (rest.length) await this.store.appendOutput(rest);
  }

  private failed(batch: LogLine[], e: unknown): void {
    this.retrying = batch;
    this.failures += 1;
    this.failingSince ??= Date.now();
    if (isDiskFull(e)) this.diskFull = true;
    if (this.buffer.over) this.shed();
    if (this.outageOutlastedPause()) this.releaseWaiters();
  }

  private stored(batch: LogLine[]): void {
    this.retrying = null;
    if (this.failingSince !== null) {
      this.troubleMs += Date.now() - this.failingSince;
      this.failingSince = null;
      this.failures = 0;
    }
    for (const l of batch) this.buffer.release(lineBytes(l));
    // Published only once stored (a refused batch waits unpublished): readers and sockets stay in step.
    try {
      this.bus.publishLines({ project_id: this.projectId, task_id: this.taskId, lines: batch });
    } catch {
      // The lines are stored; a socket that missed them reads them from the log.
    }
    if (this.pending.length < this.lowWater) this.releaseWaiters();
  }

  private outageOutlastedPause(): boolean {
    return this.failingSince !== null && Date.now() - this.failingSince >= this.outagePauseMs;
  }

  private releaseWaiters(): void {
    if (!this.drainWaiters.length) return;
    const waiters = this.drainWaiters;
    this.drainWaiters = [];
    for (const w of waiters) w();
  }
}
