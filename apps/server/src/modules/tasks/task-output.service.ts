import { TASK_OUTPUT_PAGE_SIZE, type TaskOutputPage, type TaskOutputQuery, ErrorCodes } from '@gantry/contracts';
import type { LogLine } from '../../engine/ports.js';
import type { Clock } from '../../platform/clock.js';
import { NotFoundError } from '../../platform/errors.js';
import type { TaskOutputRepository } from './task-output.repository.js';

/** What the log reads need of the task table: the task, scoped by project. */
export interface TaskLookup {
  find(projectId: number, id: number): Promise<{ id: number } | undefined | null>;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * ANSI escape sequences: CSI (colours, cursor moves), OSC (titles, links) and two-character
 * escapes. None of them spans a newline, so a page of lines is stripped as one string with the
 * same result as line by line.
 */
// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b\n]*(?:\u0007|\u001b\\)|\u001b[@-Z\\-_]/g;

export function stripAnsi(text: string): string {
  return text.includes('\u001b') ? text.replace(ANSI, '') : text;
}

/**
 * Reads of a task's log: pages (by seq range, newest first or searched), and the whole log as a
 * stream of pages so its length never decides the server's memory. Log retention lives here too.
 */
export class TaskOutputService {
  constructor(
    private readonly tasks: TaskLookup,
    private readonly output: TaskOutputRepository,
    private readonly clock: Clock,
  ) {}

  async page(projectId: number, taskId: number, query: TaskOutputQuery): Promise<TaskOutputPage> {
    await this.task(projectId, taskId);
    const [lines, lastSeq] = await Promise.all([
      this.output.page(taskId, { fromSeq: query.from_seq, toSeq: query.to_seq, limit: query.limit ?? TASK_OUTPUT_PAGE_SIZE, tail: query.tail, q: query.q || undefined }),
      this.output.lastSeq(taskId),
    ]);
    return { lines, last_seq: lastSeq };
  }

  /** Checks the task first (a 404 before any byte is sent), then yields the log page by page. */
  async all(projectId: number, taskId: number): Promise<AsyncGenerator<LogLine[]>> {
    await this.task(projectId, taskId);
    return this.output.all(taskId);
  }

  /** As `all`, the text of the lines only (raw_output): each page one string, lines joined by newlines. */
  async allText(projectId: number, taskId: number): Promise<AsyncGenerator<string>> {
    await this.task(projectId, taskId);
    return this.output.allText(taskId);
  }

  /** Deletes the output of tasks older than `days`; answers the lines deleted. */
  async applyRetention(days: number): Promise<number> {
    if (days <= 0) return 0;
    return this.output.deleteOlderThan(new Date(this.clock.now().getTime() - days * DAY_MS).toISOString());
  }

  private async task(projectId: number, taskId: number): Promise<void> {
    if (!(await this.tasks.find(projectId, taskId))) throw new NotFoundError('Task not found', { code: ErrorCodes.taskNotFound });
  }
}

/** The whole log as Semaphore's JSON array, one page of text at a time. */
export async function* jsonArrayChunks(pages: AsyncIterable<LogLine[]>): AsyncGenerator<string> {
  let first = true;
  yield '[';
  for await (const page of pages) {
    let text = '';
    for (const l of page) {
      text += (first ? '' : ',') + JSON.stringify({ task_id: l.task_id, seq: l.seq, time: l.time, output: l.output });
      first = false;
    }
    yield text;
  }
  yield ']';
}

/** The whole log as plain text, one line per line, colour codes removed unless `ansi`. */
export async function* textChunks(pages: AsyncIterable<string>, ansi: boolean): AsyncGenerator<string> {
  for await (const page of pages) yield (ansi ? page : stripAnsi(page)) + '\n';
}
