import { LOG_BATCH_LINES, LOG_BATCH_MS } from '@gantry/contracts';
import type { Clock } from '../platform/clock.js';
import type { EventBus } from '../realtime/bus.js';

import { maskSecrets } from '../platform/mask-secrets.js';
import type { LogLine, LogStore } from './ports.js';

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

export interface LogSinkOptions {
  /** Lines of process output kept per task; past it one line says the rest was dropped. */
  maxLines?: number;
  /** Store (and then publish) a batch after this many ms or lines, whichever comes first. */
  batchMs?: number;
  batchLines?: number;
  /** Lines waiting to be stored at which the producer is paused, and below which it resumes. */
  highWater?: number;
  lowWater?: number;
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
 */
export class LogSink implements OutputFlow {
  private seq = 0;
  private outputLines = 0;
  private dropped = false;
  private pending: LogLine[] = [];
  private timer: NodeJS.Timeout | undefined;
  private loop: Promise<void> | null = null;
  private lastFlush = -Infinity;
  private failed: unknown;
  private drainWaiters: Array<() => void> = [];
  private readonly secrets: string[];
  private readonly maxLines: number;
  private readonly batchMs: number;
  private readonly batchLines: number;
  private readonly highWater: number;
  private readonly lowWater: number;

  constructor(
    private readonly taskId: number,
    private readonly projectId: number,
    private readonly store: LogStore,
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
  }

  /** Adds a value to mask from now on (e.g. a password read during the run). */
  addSecret(value: string): void {
    if (value.length >= 3 && !this.secrets.includes(value)) {
      this.secrets.push(value);
      this.secrets.sort((a, b) => b.length - a.length);
    }
  }

  get saturated(): boolean {
    return this.pending.length >= this.highWater;
  }

  onDrain(fn: () => void): void {
    if (!this.saturated) fn();
    else this.drainWaiters.push(fn);
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

  /** Stores what is buffered now, e.g. before a status change, so readers see the log up to it. */
  async sync(): Promise<void> {
    this.startFlush();
    while (this.loop) await this.loop;
  }

  /** Stores what is buffered and waits for every write so far. */
  async close(): Promise<void> {
    await this.sync();
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.failed) throw this.failed;
  }

  private push(raw: string): void {
    // PostgreSQL text cannot hold NUL; SQLite could, but both engines must store the same line.
    const text = raw.includes('\u0000') ? raw.replaceAll('\u0000', '\uFFFD') : raw;
    this.pending.push({ task_id: this.taskId, seq: ++this.seq, time: this.timeNow(), output: maskSecrets(text, this.secrets) });
    if (this.loop) return; // the write loop takes it with the next batch
    const sinceLast = Date.now() - this.lastFlush;
    if (this.pending.length >= this.batchLines || sinceLast >= this.batchMs) this.startFlush();
    else this.timer ??= setTimeout(() => this.startFlush(), this.batchMs - sinceLast);
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
    if (this.loop || this.pending.length === 0) return;
    this.loop = this.writeLoop().finally(() => {
      this.loop = null;
      // Lines that arrived during the last write and found the loop busy.
      if (this.pending.length) this.startFlush();
    });
  }

  private async writeLoop(): Promise<void> {
    while (this.pending.length) {
      this.lastFlush = Date.now();
      let batch: LogLine[];
      if (this.pending.length <= MAX_WRITE) {
        batch = this.pending;
        this.pending = [];
      } else {
        batch = this.pending.slice(0, MAX_WRITE);
        this.pending = this.pending.slice(MAX_WRITE);
      }
      try {
        await this.store.appendOutput(batch);
        this.bus.publishLines({ project_id: this.projectId, task_id: this.taskId, lines: batch });
      } catch (e) {
        // A batch that could not be stored is not published: readers and sockets stay in step.
        this.failed ??= e;
      }
      if (this.pending.length < this.lowWater && this.drainWaiters.length) {
        const waiters = this.drainWaiters;
        this.drainWaiters = [];
        for (const w of waiters) w();
      }
    }
  }
}
