import type { WsMessage } from '@gantry/contracts';
import type { LogLine } from '../engine/ports.js';
import { encodeTextFrames } from './ws-frames.js';

/**
 * The lines of one task gathered for one send to every socket watching it. Each wire form is
 * serialised once, on first use, and shared by all the sockets that take it.
 */
export class LineBurst {
  readonly fromSeq: number;
  readonly toSeq: number;
  private logsFrames: string[] | undefined;
  private tails: string[] | undefined;
  private perLineMessages: string[] | undefined;
  private perLineWire: Buffer | undefined;

  constructor(
    readonly projectId: number,
    readonly taskId: number,
    private readonly lines: LogLine[],
  ) {
    this.fromSeq = lines[0]!.seq;
    this.toSeq = lines[lines.length - 1]!.seq;
  }

  /** `logs` messages: one per run of consecutive seqs (one in all for a local run). */
  logs(): string[] {
    if (this.logsFrames) return this.logsFrames;
    const frames: string[] = [];
    let start = 0;
    for (let i = 1; i <= this.lines.length; i++) {
      if (i < this.lines.length && this.lines[i]!.seq === this.lines[i - 1]!.seq + 1) continue;
      const run = this.lines.slice(start, i);
      const m: WsMessage = {
        type: 'logs',
        project_id: this.projectId,
        task_id: this.taskId,
        from_seq: run[0]!.seq,
        lines: run.map((l) => ({ time: l.time, output: l.output })),
      };
      frames.push(JSON.stringify(m));
      start = i;
    }
    this.logsFrames = frames;
    return frames;
  }

  /** Semaphore's per-line `log` messages, for sockets that never subscribed. */
  perLine(): string[] {
    const head = this.perLineHead();
    this.perLineMessages ??= this.perLineTails().map((tail) => head + tail);
    return this.perLineMessages;
  }

  /** The same messages as WebSocket frames in one buffer, for every legacy socket to write as it is. */
  perLineFrames(): Buffer {
    this.perLineWire ??= encodeTextFrames(this.perLineTails(), Buffer.from(this.perLineHead()));
    return this.perLineWire;
  }

  /** What every `log` message of the burst starts with (the key order is the one Semaphore's frames have). */
  private perLineHead(): string {
    return `{"type":"log","project_id":${this.projectId},"task_id":${this.taskId},"output":`;
  }

  /**
   * The rest of each line's message, put together by hand (a million lines a second): only the
   * two strings need JSON's escaping, and a burst's lines mostly share their time.
   */
  private perLineTails(): string[] {
    if (this.tails) return this.tails;
    let time: string | undefined;
    let timeJson = '';
    this.tails = this.lines.map((l) => {
      if (l.time !== time) {
        time = l.time;
        timeJson = JSON.stringify(time);
      }
      return `${JSON.stringify(l.output)},"time":${timeJson},"seq":${l.seq}}`;
    });
    return this.tails;
  }
}

/** A range of one task's lines a socket did not get because it fell behind. */
export interface Gap {
  projectId: number;
  fromSeq: number;
  toSeq: number;
}

export function gapFrame(taskId: number, gap: Gap): string {
  return JSON.stringify({ type: 'gap', project_id: gap.projectId, task_id: taskId, from_seq: gap.fromSeq, to_seq: gap.toSeq } satisfies WsMessage);
}

/** Lines of one task waiting for the next send (at most one send per LOG_BATCH_MS per task). */
export interface TaskStream {
  projectId: number;
  taskId: number;
  batches: LogLine[][];
  lastFlush: number;
  timer: NodeJS.Timeout | undefined;
}
