import { backoffSleep, droppedLinesText, lineBytes, LogRetryBuffer, shedOldest, type Backoff, type DropNotice } from '../engine/log-retry-buffer.js';
import { RunnerHttpError, type RunnerServer } from './server-client.js';
import { maskSecrets } from '../platform/mask-secrets.js';

const FLUSH_MS = 200;
const BATCH = 1000;

/** The server's answer (409) when the task has ended: it takes no more lines or reports for it. */
export function taskHasEnded(e: unknown): boolean {
  return e instanceof RunnerHttpError && e.status === 409;
}

/** A refusal that a retry cannot change (the request itself, or this runner's standing, is wrong). */
export function refusedForGood(e: unknown): boolean {
  return e instanceof RunnerHttpError && e.status >= 400 && e.status < 500 && e.status !== 408 && e.status !== 429;
}

/** The line a run ends with when some of its output never reached the server. */
export function lostLinesText(count: number, markedFailed: boolean): string {
  return `${count.toLocaleString('en')} line${count === 1 ? '' : 's'} of this task's output never reached the server and were dropped${markedFailed ? '; the task is marked as failed' : ''}.`;
}

/** Lines waiting to reach the server, across every run of this runner process. */
const runnerBuffer = new LogRetryBuffer();

export interface RemoteLogOptions {
  retryBuffer?: LogRetryBuffer;
  backoff?: Backoff;
}

interface Line {
  seq: number;
  time: string;
  output: string;
}
const bytes = (l: Line) => lineBytes({ task_id: 0, ...l });

/**
 * A remote run's log: lines are masked here already (the server masks again), numbered, and
 * sent in batches, in order. A batch the server could not take (it is restarting, its database
 * is away) is sent again with backoff until it is taken; lines written meanwhile wait behind it,
 * in this runner's retry buffer. Past the buffer's bound the oldest waiting lines give way to one
 * line saying how many were dropped, and `lost` tells the run. Once the server says the task has
 * ended, nothing more is sent and `onEnded` is told (once).
 */
export class RemoteLog {
  private seq = 0;
  /** Lines not sent yet: they may still be dropped and renumbered. */
  private buffer: Line[] = [];
  private inFlight: Line[] | null = null;
  private timer: NodeJS.Timeout | undefined;
  private loop: Promise<void> | null = null;
  private secrets: string[] = [];
  private ended = false;
  private failing = false;
  private failures = 0;
  private dropped = 0;
  private notice: DropNotice<Line> | null = null;
  private readonly retryBuffer: LogRetryBuffer;
  private readonly backoff: Backoff;

  constructor(
    private readonly server: RunnerServer,
    private readonly taskId: number,
    private readonly now: () => Date = () => new Date(),
    private readonly onEnded: () => void = () => undefined,
    options: RemoteLogOptions = {},
  ) {
    this.retryBuffer = options.retryBuffer ?? runnerBuffer;
    this.backoff = options.backoff ?? { firstMs: 250, maxMs: 5000 };
  }

  /** Lines of this run that never reached the server (dropped past the retry buffer, or refused for good). */
  get lost(): number {
    return this.dropped;
  }

  /** Stops sending: the server has ended the task (answered 409 to a line or a report). */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.forget(this.buffer);
    this.buffer = [];
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.onEnded();
  }

  setSecrets(secrets: string[]): void {
    this.secrets = [...new Set(secrets.filter((s) => s.length >= 3))].sort((a, b) => b.length - a.length);
  }

  write(line: string): void {
    if (this.ended) return;
    const l = { seq: ++this.seq, time: this.now().toISOString(), output: maskSecrets(line, this.secrets) };
    this.buffer.push(l);
    this.retryBuffer.hold(bytes(l));
    if (this.failing && this.retryBuffer.over) this.shed();
    if (this.buffer.length >= BATCH) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), FLUSH_MS);
  }

  /** Sends what is buffered and waits until every line so far reached the server (or the task ended). */
  async sync(): Promise<void> {
    this.flush();
    while (this.loop) await this.loop;
  }

  private flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.loop || this.ended || (this.buffer.length === 0 && !this.inFlight)) return;
    this.loop = this.sendLoop().finally(() => {
      this.loop = null;
      if (this.buffer.length && !this.ended) this.flush();
    });
  }

  private async sendLoop(): Promise<void> {
    while (!this.ended && (this.inFlight || this.buffer.length)) {
      const lines = (this.inFlight ??= this.buffer.splice(0, BATCH));
      try {
        await this.server.log(this.taskId, { lines });
      } catch (e) {
        if (taskHasEnded(e)) return this.end();
        if (refusedForGood(e)) {
          this.dropped += lines.length;
        } else {
          this.failing = true;
          this.failures += 1;
          if (this.retryBuffer.over) this.shed();
          await backoffSleep(this.backoff, this.failures);
          continue;
        }
      }
      this.forget(lines);
      this.inFlight = null;
      this.failing = false;
      this.failures = 0;
    }
  }

  /** Past the retry buffer's bound: the oldest unsent lines give way to one line saying how many. */
  private shed(): void {
    const r = shedOldest(this.buffer, this.notice, this.retryBuffer, bytes, (seq, count) => ({
      seq,
      time: this.now().toISOString(),
      output: droppedLinesText(count, this.retryBuffer.limitBytes, 'server'),
    }));
    if (!r) return;
    this.notice = r.notice;
    this.dropped += r.dropped;
    this.seq = r.lastSeq;
  }

  private forget(lines: Line[]): void {
    for (const l of lines) this.retryBuffer.release(bytes(l));
  }
}
