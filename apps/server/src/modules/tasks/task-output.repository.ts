import { FINISHED_STATUSES } from '@gantry/contracts';
import { sql } from 'kysely';
import type { Db } from '../../db/db.js';
import type { LogLine } from '../../engine/log-sink.js';

/** Rows per statement when storing a batch on PostgreSQL (unnest takes four array parameters whatever the count). */
const WRITE_CHUNK = 5000;
/** Rows per prepared SQLite statement (400 parameters, well under SQLite's limit). */
const SQLITE_ROWS = 100;
const ANALYZE_EVERY_ROWS = 200_000;

/** Which lines of a task's log to read; bounds inclusive, `tail` takes the last `limit` of the range. */
export interface OutputRange {
  fromSeq?: number;
  toSeq?: number;
  limit: number;
  tail?: boolean;
  /** Only lines containing this text, case-insensitively. */
  q?: string;
}

/**
 * The `task_output` table: the hot write path of the log pipeline and every read of a log. Writes
 * are one prepared statement in one transaction per batch on SQLite and one `INSERT … SELECT FROM
 * unnest(…)` per chunk on PostgreSQL (four array parameters whatever the row count).
 */
export class TaskOutputRepository {
  private sqliteInsert: ((lines: LogLine[]) => void) | undefined;
  private sqliteText: ((taskId: number, after: number, limit: number) => Array<[number, string]>) | undefined;
  /** Rows written since PostgreSQL last analysed the table (see `append`). */
  private sinceAnalyze = 0;

  constructor(private readonly d: Pick<Db, 'db' | 'engine' | 'sqlite'>) {
    const raw = d.sqlite;
    if (raw) {
      // Many rows a statement: SQLite's per-statement cost, not the rows, bounds the ingest rate.
      const many = raw.prepare(`INSERT INTO task_output (task_id, seq, time, output) VALUES ${Array(SQLITE_ROWS).fill('(?, ?, ?, ?)').join(', ')}`);
      const one = raw.prepare('INSERT INTO task_output (task_id, seq, time, output) VALUES (?, ?, ?, ?)');
      this.sqliteInsert = raw.transaction((lines: LogLine[]) => {
        let i = 0;
        for (; i + SQLITE_ROWS <= lines.length; i += SQLITE_ROWS) {
          const params: Array<number | string> = [];
          for (let j = i; j < i + SQLITE_ROWS; j++) {
            const l = lines[j]!;
            params.push(l.task_id, l.seq, l.time, l.output);
          }
          many.run(params);
        }
        for (; i < lines.length; i++) {
          const l = lines[i]!;
          one.run(l.task_id, l.seq, l.time, l.output);
        }
      });
      const text = raw.prepare('SELECT seq, output FROM task_output WHERE task_id = ? AND seq > ? ORDER BY seq LIMIT ?').raw(true);
      this.sqliteText = (taskId, after, limit) => text.all(taskId, after, limit) as Array<[number, string]>;
    }
  }

  async append(lines: LogLine[]): Promise<void> {
    if (lines.length === 0) return;
    if (this.sqliteInsert) {
      this.sqliteInsert(lines);
      return;
    }
    if (this.d.engine === 'postgres') {
      for (let i = 0; i < lines.length; i += WRITE_CHUNK) {
        const chunk = lines.slice(i, i + WRITE_CHUNK);
        await sql`INSERT INTO task_output (task_id, seq, time, output)
          SELECT * FROM unnest(${chunk.map((l) => l.task_id)}::integer[], ${chunk.map((l) => l.seq)}::integer[], ${chunk.map((l) => l.time)}::text[], ${chunk.map((l) => l.output)}::text[])`.execute(this.d.db);
      }
      // A table that grew by much since its statistics were taken may be planned as if it were
      // small (a scan and sort of a whole task for one page): refresh them, without waiting.
      this.sinceAnalyze += lines.length;
      if (this.sinceAnalyze >= ANALYZE_EVERY_ROWS) {
        this.sinceAnalyze = 0;
        void sql`ANALYZE task_output`.execute(this.d.db).catch(() => undefined);
      }
      return;
    }
    for (let i = 0; i < lines.length; i += 500) await this.d.db.insertInto('task_output').values(lines.slice(i, i + 500)).execute();
  }

  /** One page of the log, ascending by seq. */
  async page(taskId: number, r: OutputRange): Promise<LogLine[]> {
    let q = this.d.db.selectFrom('task_output').select(['task_id', 'seq', 'time', 'output']).where('task_id', '=', taskId);
    if (r.fromSeq !== undefined) q = q.where('seq', '>=', r.fromSeq);
    if (r.toSeq !== undefined) q = q.where('seq', '<=', r.toSeq);
    if (r.q) {
      const pattern = `%${r.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      // SQLite's LIKE ignores ASCII case already; PostgreSQL needs ILIKE. Both escape with a backslash.
      q = this.d.engine === 'postgres' ? q.where(sql<boolean>`output ILIKE ${pattern} ESCAPE '\\'`) : q.where(sql<boolean>`output LIKE ${pattern} ESCAPE '\\'`);
    }
    const rows = await q
      .orderBy('seq', r.tail ? 'desc' : 'asc')
      .limit(r.limit)
      .execute();
    return r.tail ? rows.reverse() : rows;
  }

  /** The highest stored seq of a task's log, or null when it has none. */
  async lastSeq(taskId: number): Promise<number | null> {
    const row = await this.d.db.selectFrom('task_output').select('seq').where('task_id', '=', taskId).orderBy('seq', 'desc').limit(1).executeTakeFirst();
    return row?.seq ?? null;
  }

  /**
   * Every line in order, read in keyset pages of `pageSize`, so a log of any length is read with
   * the memory of one page.
   */
  async *all(taskId: number, pageSize = 5000): AsyncGenerator<LogLine[]> {
    let after = -1;
    for (;;) {
      const rows = await this.d.db
        .selectFrom('task_output')
        .select(['task_id', 'seq', 'time', 'output'])
        .where('task_id', '=', taskId)
        .where('seq', '>', after)
        .orderBy('seq')
        .limit(pageSize)
        .execute();
      if (rows.length === 0) return;
      yield rows;
      if (rows.length < pageSize) return;
      after = rows[rows.length - 1]!.seq;
    }
  }

  /** The text of every line in order, in keyset pages: what `raw_output` sends, read as lean as each engine allows. */
  async *allText(taskId: number, pageSize = 10_000): AsyncGenerator<string[]> {
    let after = -1;
    for (;;) {
      let seqs: number[];
      let texts: string[];
      if (this.sqliteText) {
        const rows = this.sqliteText(taskId, after, pageSize);
        seqs = rows.map((r) => r[0]);
        texts = rows.map((r) => r[1]);
      } else {
        const rows = await this.d.db.selectFrom('task_output').select(['seq', 'output']).where('task_id', '=', taskId).where('seq', '>', after).orderBy('seq').limit(pageSize).execute();
        seqs = rows.map((r) => r.seq);
        texts = rows.map((r) => r.output);
      }
      if (texts.length === 0) return;
      yield texts;
      if (texts.length < pageSize) return;
      after = seqs[seqs.length - 1]!;
    }
  }

  /**
   * Log retention: deletes the output of tasks that ended (or, never started, were created)
   * before `before`, a batch of tasks at a time; the task rows stay. Answers the lines deleted.
   */
  async deleteOlderThan(before: string, batch = 500): Promise<number> {
    let deleted = 0;
    for (;;) {
      const ids = await this.d.db
        .selectFrom('task')
        .select('id')
        .where((eb) => eb.or([eb('end', '<', before), eb.and([eb('end', 'is', null), eb('created', '<', before), eb('status', 'in', FINISHED_STATUSES)])]))
        .where((eb) => eb.exists(eb.selectFrom('task_output').select('task_output.id').whereRef('task_output.task_id', '=', 'task.id')))
        .limit(batch)
        .execute();
      if (ids.length === 0) return deleted;
      const r = await this.d.db
        .deleteFrom('task_output')
        .where(
          'task_id',
          'in',
          ids.map((i) => i.id),
        )
        .executeTakeFirst();
      deleted += Number(r.numDeletedRows);
    }
  }
}

