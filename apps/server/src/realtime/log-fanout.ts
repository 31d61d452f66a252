import type { WsMessage } from '@gantry/contracts';
import type { LogLine } from '../engine/ports.js';

/**
 * The lines of one task gathered for one send to every socket watching it. Each wire form is
 * serialised once, on first use, and shared by all the sockets that take it.
 */
export class LineBurst {
  readonly fromSeq: number;
  readonly toSeq: number;
  private logsFrames: string[] | undefined;
  private perLineFrames: string[] | undefined;

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
    this.perLineFrames ??= this.lines.map((l) =>
      JSON.stringify({ type: 'log', project_id: this.projectId, task_id: this.taskId, output: l.output, time: l.time, seq: l.seq } satisfies WsMessage),
    );
    return this.perLineFrames;
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
