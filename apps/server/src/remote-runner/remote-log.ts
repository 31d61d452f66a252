import { RunnerHttpError, type RunnerServer } from './server-client.js';
import { maskSecrets } from '../platform/mask-secrets.js';

const FLUSH_MS = 200;
const BATCH = 1000;

/** The server's answer (409) when the task has ended: it takes no more lines or reports for it. */
export function taskHasEnded(e: unknown): boolean {
  return e instanceof RunnerHttpError && e.status === 409;
}

/**
 * A remote run's log: lines are masked here already (the server masks again), numbered, and
 * sent in batches; a failed send is retried with the next flush so order is kept. Once the
 * server says the task has ended, nothing more is sent and `onEnded` is told (once).
 */
export class RemoteLog {
  private seq = 0;
  private buffer: Array<{ seq: number; time: string; output: string }> = [];
  private timer: NodeJS.Timeout | undefined;
  private sending: Promise<void> = Promise.resolve();
  private secrets: string[] = [];
  private ended = false;

  constructor(
    private readonly server: RunnerServer,
    private readonly taskId: number,
    private readonly now: () => Date = () => new Date(),
    private readonly onEnded: () => void = () => undefined,
  ) {}

  /** Stops sending: the server has ended the task (answered 409 to a line or a report). */
  end(): void {
    if (this.ended) return;
    this.ended = true;
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
    this.buffer.push({ seq: ++this.seq, time: this.now().toISOString(), output: maskSecrets(line, this.secrets) });
    if (this.buffer.length >= BATCH) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), FLUSH_MS);
  }

  /** Sends what is buffered and waits until every line so far reached the server (or gave up). */
  async sync(): Promise<void> {
    this.flush();
    await this.sending;
  }

  private flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.buffer.length === 0) return;
    const lines = this.buffer.splice(0, this.buffer.length);
    this.sending = this.sending.then(async () => {
      for (let attempt = 0; ; attempt++) {
        if (this.ended) return;
        try {
          for (let i = 0; i < lines.length; i += BATCH) await this.server.log(this.taskId, { lines: lines.slice(i, i + BATCH) });
          return;
        } catch (e) {
          if (taskHasEnded(e)) return this.end();
          // The server may be restarting: a few tries, then the lines are lost rather than the run stuck.
          if (attempt >= 4) return;
          await new Promise((r) => setTimeout(r, 500 * (attempt + 1)));
        }
      }
    });
  }
}
