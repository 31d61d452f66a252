import type { Clock } from '../platform/clock.js';
import type { EventBus } from '../realtime/bus.js';

export interface LogLine {
  task_id: number;
  seq: number;
  time: string;
  output: string;
}

export interface LogStore {
  appendOutput(lines: LogLine[]): Promise<void>;
}

const FLUSH_MS = 100;
const FLUSH_LINES = 2000;
const MASK = '**********';

/**
 * The log pipeline of one task: each line is masked for known secret values, numbered, published
 * at once over the bus, and stored in batches (every 100 ms or 2000 lines) so a chatty task does
 * not make one write per line.
 */
export class LogSink {
  private seq = 0;
  private buffer: LogLine[] = [];
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();
  private failed: unknown;
  private readonly secrets: string[];

  constructor(
    private readonly taskId: number,
    private readonly projectId: number,
    private readonly store: LogStore,
    private readonly bus: EventBus,
    private readonly clock: Clock,
    secrets: string[],
  ) {
    // Longest first, so a secret that contains another is masked whole.
    this.secrets = [...new Set(secrets.filter((s) => s.length >= 3))].sort((a, b) => b.length - a.length);
  }

  /** Adds a value to mask from now on (e.g. a password read during the run). */
  addSecret(value: string): void {
    if (value.length >= 3 && !this.secrets.includes(value)) {
      this.secrets.push(value);
      this.secrets.sort((a, b) => b.length - a.length);
    }
  }

  write(raw: string): void {
    const output = this.mask(raw);
    const line: LogLine = { task_id: this.taskId, seq: ++this.seq, time: this.clock.now().toISOString(), output };
    this.buffer.push(line);
    this.bus.publish({ type: 'log', project_id: this.projectId, task_id: this.taskId, output, time: line.time, seq: line.seq });
    if (this.buffer.length >= FLUSH_LINES) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), FLUSH_MS);
  }

  /** Stores what is buffered now, e.g. before a status change, so readers see the log up to it. */
  async sync(): Promise<void> {
    this.flush();
    await this.writing;
  }

  /** Stores what is buffered and waits for every write so far. */
  async close(): Promise<void> {
    this.flush();
    await this.writing;
    if (this.failed) throw this.failed;
  }

  private flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.buffer.length === 0) return;
    const batch = this.buffer;
    this.buffer = [];
    this.writing = this.writing.then(() => this.store.appendOutput(batch)).catch((e: unknown) => {
      this.failed = e;
    });
  }

  private mask(line: string): string {
    return maskSecrets(line, this.secrets);
  }
}

/** Replaces every known secret value in a line; `secrets` longest first masks a secret containing another whole. */
export function maskSecrets(line: string, secrets: readonly string[]): string {
  let out = line;
  for (const s of secrets) if (s.length >= 3 && out.includes(s)) out = out.split(s).join(MASK);
  return out;
}
