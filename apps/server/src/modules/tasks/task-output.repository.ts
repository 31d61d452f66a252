import { FINISHED_STATUSES } from '@gantry/contracts';
import { sql } from 'kysely';
import { from as copyFrom } from 'pg-copy-streams';
import type { Pool } from 'pg';
import type { Db } from '../../db/db.js';
import type { LogLine } from '../../engine/ports.js';

/** Rows per prepared SQLite statement (400 parameters, well under SQLite's limit). */
const SQLITE_ROWS = 100;
const ANALYZE_EVERY_ROWS = 200_000;
/**
 * Rows per multi-row INSERT elsewhere (MySQL/MariaDB), and the text per statement: a statement
 * stays well under MariaDB's default max_allowed_packet (16 MiB), whatever the lines' length.
 */
const INSERT_ROWS = 500;
const INSERT_CHARS = 1 << 20;

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
 * are one prepared statement in one transaction per batch on SQLite, one `COPY … FROM STDIN` per
 * batch on PostgreSQL (about three times the rate of a multi-row insert of the same rows), and
 * multi-row inserts in one transaction on MySQL/MariaDB.
 */
export class TaskOutputRepository {
  private sqliteInsert: ((lines: LogLine[]) => void) | undefined;
  private sqliteText: ((taskId: number, after: number, limit: number) => { n: number; m: number | null; g: string | null }) | undefined;
  /** Rows written since PostgreSQL last analysed the table (see `append`). */
  private sinceAnalyze = 0;

  constructor(private readonly d: Pick<Db, 'db' | 'engine' | 'sqlite' | 'pgPool'>) {
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
      const text = raw.prepare(
        'SELECT count(*) AS n, max(seq) AS m, group_concat(output, char(10) ORDER BY seq) AS g FROM (SELECT seq, output FROM task_output WHERE task_id = ? AND seq > ? ORDER BY seq LIMIT ?)',
      );
      this.sqliteText = (taskId, after, limit) => text.get(taskId, after, limit) as { n: number; m: number | null; g: string | null };
    }
  }

  async append(lines: LogLine[]): Promise<void> {
    if (lines.length === 0) return;
    if (this.sqliteInsert) {
      this.sqliteInsert(lines);
      return;
    }
    if (this.d.pgPool) {
      await copyLines(this.d.pgPool, lines);
      // A table that grew by much since its statistics were taken may be planned as if it were
      // small (a scan and sort of a whole task for one page): refresh them, without waiting.
      this.sinceAnalyze += lines.length;
      if (this.sinceAnalyze >= ANALYZE_EVERY_ROWS) {
        this.sinceAnalyze = 0;
        void sql`ANALYZE task_output`.execute(this.d.db).catch(() => undefined);
      }
      return;
    }
    const batches: LogLine[][] = [];
    let start = 0;
    let chars = 0;
    for (let i = 0; i < lines.length; i++) {
      chars += lines[i]!.output.length;
      if (i + 1 - start >= INSERT_ROWS || chars >= INSERT_CHARS || i === lines.length - 1) {
        batches.push(lines.slice(start, i + 1));
        start = i + 1;
        chars = 0;
      }
    }
    if (batches.length === 1) {
      await this.d.db.insertInto('task_output').values(batches[0]!).execute();
      return;
    }
    // One commit for the whole batch, as on the other engines.
    await this.d.db.transaction().execute(async (trx) => {
      for (const b of batches) await trx.insertInto('task_output').values(b).execute();
    });
  }

  /** One page of the log, ascending by seq. */
  async page(taskId: number, r: OutputRange): Promise<LogLine[]> {
    let q = this.d.db.selectFrom('task_output').select(['task_id', 'seq', 'time', 'output']).where('task_id', '=', taskId);
    if (r.fromSeq !== undefined) q = q.where('seq', '>=', r.fromSeq);
    if (r.toSeq !== undefined) q = q.where('seq', '<=', r.toSeq);
    if (r.q) {
      const pattern = `%${r.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      // SQLite's LIKE ignores ASCII case already; PostgreSQL needs ILIKE. Both escape with a backslash.
      // MySQL's tables compare exactly (binary collation), so both sides are lowered; its LIKE
      // escapes with a backslash by default (and `'\\'` would be an unterminated string there).
      if (this.d.engine === 'postgres') q = q.where(sql<boolean>`output ILIKE ${pattern} ESCAPE '\\'`);
      else if (this.d.engine === 'mysql') q = q.where(sql<boolean>`LOWER(output) LIKE LOWER(${pattern})`);
      else q = q.where(sql<boolean>`output LIKE ${pattern} ESCAPE '\\'`);
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

  /**
   * The text of every line in order, one keyset page at a time, each page's lines already joined
   * by newlines: what `raw_output` sends. The database joins them (SQLite's `group_concat`,
   * PostgreSQL's `string_agg`), so a page reaches JavaScript as one string, not thousands. MySQL's
   * GROUP_CONCAT stops at group_concat_max_len (1 MiB by default): there JavaScript joins them.
   */
  async *allText(taskId: number, pageSize = 10_000): AsyncGenerator<string> {
    let after = -1;
    for (;;) {
      let page: { n: number; m: number | null; g: string | null };
      if (this.sqliteText) page = this.sqliteText(taskId, after, pageSize);
      else if (this.d.engine === 'postgres') {
        const r = await sql<typeof page>`SELECT count(*)::integer AS n, max(seq) AS m, string_agg(output, E'\n' ORDER BY seq) AS g
          FROM (SELECT seq, output FROM task_output WHERE task_id = ${taskId} AND seq > ${after} ORDER BY seq LIMIT ${pageSize}) AS p`.execute(this.d.db);
        page = r.rows[0]!;
      } else {
        const rows = await this.d.db.selectFrom('task_output').select(['seq', 'output']).where('task_id', '=', taskId).where('seq', '>', after).orderBy('seq').limit(pageSize).execute();
        page = { n: rows.length, m: rows.at(-1)?.seq ?? null, g: rows.map((r) => r.output).join('\n') };
      }
      if (page.n === 0 || page.m === null) return;
      yield page.g ?? '';
      if (page.n < pageSize) return;
      after = page.m;
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
        .where((eb) => eb.exists(eb.selectFrom('task_output').select('task_output.seq').whereRef('task_output.task_id', '=', 'task.id')))
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

/** A value in `COPY`'s text format: backslash, tab, newline and carriage return are escaped; NUL, which PostgreSQL text cannot hold, is replaced. */
function copyText(v: string): string {
  return /[\\\t\n\r\0]/.test(v) ? v.replace(/[\\\t\n\r\0]/g, (c) => COPY_ESCAPES[c]!) : v;
}
const COPY_ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r', '\0': '\uFFFD' };

/** Stores lines with one `COPY FROM STDIN` on a pooled connection; a failed copy discards that connection. */
async function copyLines(pool: Pool, lines: LogLine[]): Promise<void> {
  let body = '';
  for (const l of lines) body += `${l.task_id}\t${l.seq}\t${copyText(l.time)}\t${copyText(l.output)}\n`;
  const client = await pool.connect();
  try {
    const stream = client.query(copyFrom('COPY task_output (task_id, seq, time, output) FROM STDIN'));
    await new Promise<void>((resolve, reject) => {
      stream.on('finish', resolve);
      stream.on('error', reject);
      stream.end(body);
    });
    client.release();
  } catch (e) {
    client.release(e as Error);
    throw e;
  }
}
