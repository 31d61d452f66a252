import { ACTIVE_STATUSES } from '@gantry/contracts';
import { SqliteAdapter, type ExpressionBuilder, type Kysely } from 'kysely';
import type { Database } from '../../db/types.js';
import type { LogLine } from '../../engine/ports.js';

/** A line as a runner sends it: its seq, or none from a runner that leaves numbering to the server. */
export interface RunnerLine {
  seq?: number | undefined;
  time: string;
  output: string;
}

/** Rows per INSERT, and the text per statement (under MariaDB's default max_allowed_packet). */
const INSERT_ROWS = 200;
const INSERT_CHARS = 1 << 20;

/**
 * The runner still takes lines for the task: it is the runner's and active, or rejected by the
 * console with the runner's last lines and final report still to come.
 */
export function openForRunner(eb: ExpressionBuilder<Database, 'task'>, runnerId: number) {
  // Runner and status first, as the index (runner_id, status) has them: a runner's finished tasks are never scanned.
  return eb.and([
    eb('task.runner_id', '=', runnerId),
    eb('task.status', 'in', [...ACTIVE_STATUSES, 'rejected']),
    eb.or([eb('task.status', '!=', 'rejected'), eb('task.runner_reported', '=', 0)]),
  ]);
}

/**
 * A runner's log lines, stored idempotently: a runner that lost the answer to a batch sends it
 * again, so lines at or below the task's highest stored seq are skipped. The task row is locked
 * (SQLite: its single writer) from the check to the insert, so two copies of a batch sent at once
 * cannot both pass the check, and a server ending the task (which then adds its own line after
 * the last) waits for an append in flight and refuses every later one.
 */
export class RunnerLogRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /** The lines stored (those not stored before), or null when the task is not open for the runner (nothing stored). */
  append(runnerId: number, taskId: number, lines: RunnerLine[]): Promise<LogLine[] | null> {
    return this.db.transaction().execute(async (trx) => {
      let lock = trx
        .selectFrom('task')
        .select('id')
        .where('id', '=', taskId)
        .where((eb) => openForRunner(eb, runnerId));
      if (!(trx.getExecutor().adapter instanceof SqliteAdapter)) lock = lock.forUpdate();
      if (!(await lock.executeTakeFirst())) return null;
      const max = await trx.selectFrom('task_output').select((eb) => eb.fn.max('seq').as('m')).where('task_id', '=', taskId).executeTakeFirst();
      let top = Number(max?.m ?? 0);
      const fresh: LogLine[] = [];
      for (const l of lines) {
        const seq = l.seq ?? top + 1;
        // Stored already (a retried batch), or out of order: a seq is never stored twice.
        if (seq <= top) continue;
        top = seq;
        fresh.push({ task_id: taskId, seq, time: l.time, output: l.output });
      }
      for (const batch of batches(fresh)) await trx.insertInto('task_output').values(batch).execute();
      return fresh;
    });
  }

  /**
   * Ends a runner's task from the server (`from` -> `to`) with a line after the last stored one,
   * in one transaction: nobody sees the status without the line, and the update's row lock keeps
   * the runner's appends out until both are in (they are refused after). Null when the task had
   * left `from` already (another node, the runner's own report): nothing is written then.
   */
  end(taskId: number, from: string, to: string, end: string, output: string): Promise<LogLine | null> {
    return this.db.transaction().execute(async (trx) => {
      const moved = await trx.updateTable('task').set({ status: to, end }).where('id', '=', taskId).where('status', '=', from).executeTakeFirst();
      if (Number(moved.numUpdatedRows) !== 1) return null;
      const max = await trx.selectFrom('task_output').select((eb) => eb.fn.max('seq').as('m')).where('task_id', '=', taskId).executeTakeFirst();
      const line = { task_id: taskId, seq: Number(max?.m ?? 0) + 1, time: end, output };
      await trx.insertInto('task_output').values(line).execute();
      return line;
    });
  }
}

function batches(lines: LogLine[]): LogLine[][] {
  const out: LogLine[][] = [];
  let current: LogLine[] = [];
  let chars = 0;
  for (const l of lines) {
    if (current.length >= INSERT_ROWS || (current.length > 0 && chars + l.output.length > INSERT_CHARS)) {
      out.push(current);
      current = [];
      chars = 0;
    }
    current.push(l);
    chars += l.output.length;
  }
  if (current.length) out.push(current);
  return out;
}
