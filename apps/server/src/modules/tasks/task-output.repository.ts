import { ACTIVE_STATUSES, FINISHED_STATUSES } from '@gantry/contracts';
import { sql, type Kysely } from 'kysely';
import { from as copyFrom } from 'pg-copy-streams';
import type { Pool, PoolClient } from 'pg';
import type { Db } from '../../db/db.js';
import type { Database } from '../../db/types.js';
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
/**
 * A run may add lines while its task is in one of these: active, or rejected by a user while it
 * waited for confirmation (the run still ends it). A task failed by another node, swept, or ended
 * is no longer any run's.
 */
const LOGGABLE_STATUSES: readonly string[] = [...ACTIVE_STATUSES, 'rejected'];

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
  private sqliteOwned: ((lines: LogLine[], taskIds: number[], owner: string) => boolean) | undefined;
  private sqliteText: ((taskId: number, after: number, limit: number) => { n: number; m: number | null; g: string | null }) | undefined;
  /** Rows written since PostgreSQL last analysed the table (see `append`). */
  private sinceAnalyze = 0;

  constructor(private readonly d: Pick<Db, 'db' | 'engine' | 'sqlite' | 'pgPool'>) {
    const raw = d.sqlite;
    if (raw) {
      // Many rows a statement: SQLite's per-statement cost, not the rows, bounds the ingest rate.
      const many = raw.prepare(`INSERT INTO task_output (task_id, seq, time, output) VALUES ${Array(SQLITE_ROWS).fill('(?, ?, ?, ?)').join(', ')}`);
      const one = raw.prepare('INSERT INTO task_output (task_id, seq, time, output) VALUES (?, ?, ?, ?)');
      const insertRows = (lines: LogLine[]) => {
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
      };
      this.sqliteInsert = raw.transaction(insertRows);
      const owned = raw.prepare(`SELECT 1 FROM task WHERE id = ? AND node_id = ? AND status IN (${LOGGABLE_STATUSES.map(() => '?').join(', ')})`).pluck();
      // One writer at a time on SQLite: the check and the insert are one transaction, nothing comes between.
      this.sqliteOwned = raw.transaction((lines: LogLine[], taskIds: number[], owner: string) => {
        for (const id of taskIds) if (owned.get(id, owner, ...LOGGABLE_STATUSES) === undefined) return false;
        insertRows(lines);
        return true;
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
      this.countForAnalyze(lines.length);
      return;
    }
    const batches = insertBatches(lines);
    if (batches.length === 1) {
      await this.d.db.insertInto('task_output').values(batches[0]!).execute();
      return;
    }
    // One commit for the whole batch, as on the other engines.
    await this.d.db.transaction().execute(async (trx) => {
      for (const b of batches) await trx.insertInto('task_output').values(b).execute();
    });
  }

  /**
   * A run's append: stores `lines` only while each of their tasks is live (LOGGABLE_STATUSES) and
   * `owner`'s, and answers false, storing nothing, when one is not. The check holds the task rows
   * (a share lock on PostgreSQL and MySQL/MariaDB, SQLite's single writer) until the lines are in:
   * a node failing the task waits for an append in flight, and every append after it is refused,
   * so the line it adds after the last stored one never shares a seq. On PostgreSQL the lines
   * still go by COPY, in the same round trip as the check (measured on par with a plain COPY for
   * batches of 1,000 and 3,000 lines; a separate transaction cost about 6% more).
   */
  async appendOwned(lines: LogLine[], owner: string): Promise<boolean> {
    if (lines.length === 0) return true;
    const taskIds = [...new Set(lines.map((l) => l.task_id))];
    if (this.sqliteOwned) return this.sqliteOwned(lines, taskIds, owner);
    if (this.d.pgPool) {
      const stored = await copyLinesOwned(this.d.pgPool, lines, taskIds, owner);
      if (stored) this.countForAnalyze(lines.length);
      return stored;
    }
    return this.d.db.transaction().execute(async (trx) => {
      if (!(await holdOwned(trx, taskIds, owner))) return false;
      for (const b of insertBatches(lines)) await trx.insertInto('task_output').values(b).execute();
      return true;
    });
  }

  /**
   * A table that grew by much since its statistics were taken may be planned as if it were small
   * (a scan and sort of a whole task for one page): refresh them now and then, without waiting.
   */
  private countForAnalyze(rows: number): void {
    this.sinceAnalyze += rows;
    if (this.sinceAnalyze >= ANALYZE_EVERY_ROWS) {
      this.sinceAnalyze = 0;
      void sql`ANALYZE task_output`.execute(this.d.db).catch(() => undefined);
    }
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
  const client = await pool.connect();
  try {
    await copyInto(client, lines);
    client.release();
  } catch (e) {
    client.release(e as Error);
    throw e;
  }
}

/** `before`: statements sent in the same query string ahead of the COPY (they must return no rows). */
async function copyInto(client: PoolClient, lines: LogLine[], before = ''): Promise<void> {
  let body = '';
  for (const l of lines) body += `${l.task_id}\t${l.seq}\t${copyText(l.time)}\t${copyText(l.output)}\n`;
  const stream = client.query(copyFrom(`${before}COPY task_output (task_id, seq, time, output) FROM STDIN`));
  await new Promise<void>((resolve, reject) => {
    stream.on('finish', resolve);
    stream.on('error', reject);
    stream.end(body);
  });
}

/** The SQLSTATE the lock block below raises when a task is not live and the node's (any five of [0-9A-Z] may be used). */
const NOT_OWNED_SQLSTATE = 'GNOWN';

/**
 * `copyLines` when every task of the batch is live and `owner`'s, in one round trip: a query
 * string of two statements runs as one implicit transaction, so the share lock the first takes on
 * the task rows (an UPDATE of their status by another node waits for the commit; one that came
 * first makes the lock find no row, and the block raises) lasts until the COPY is committed.
 * Values are inlined (a simple query has no parameters): ids are integers, the node id is quoted
 * by the driver and may not hold the block's `$` quote.
 */
async function copyLinesOwned(pool: Pool, lines: LogLine[], taskIds: number[], owner: string): Promise<boolean> {
  if (!taskIds.every(Number.isSafeInteger)) throw new Error('task ids must be integers');
  if (owner.includes('$')) throw new Error('a node id must not contain "$"');
  const client = await pool.connect();
  try {
    const statuses = LOGGABLE_STATUSES.map((s) => client.escapeLiteral(s)).join(', ');
    const lock = `DO $gantry$ DECLARE n integer; BEGIN
      PERFORM 1 FROM task WHERE id IN (${taskIds.join(', ')}) AND node_id = ${client.escapeLiteral(owner)} AND status IN (${statuses}) FOR SHARE;
      GET DIAGNOSTICS n = ROW_COUNT;
      IF n <> ${taskIds.length} THEN RAISE EXCEPTION 'task not live or not this node''s' USING ERRCODE = '${NOT_OWNED_SQLSTATE}'; END IF;
    END $gantry$`;
    await copyInto(client, lines, `${lock}; `);
    client.release();
    return true;
  } catch (e) {
    // Refused or failed, the connection is discarded: it is never handed on mid-error.
    client.release(e as Error);
    if ((e as { code?: unknown }).code === NOT_OWNED_SQLSTATE) return false;
    throw e;
  }
}

/** MySQL/MariaDB: the task rows, share-locked until the transaction ends, while live and `owner`'s. */
async function holdOwned(trx: Kysely<Database>, taskIds: number[], owner: string): Promise<boolean> {
  const r = await sql<{ id: number }>`SELECT id FROM task WHERE id IN (${sql.join(taskIds)}) AND node_id = ${owner} AND status IN (${sql.join(LOGGABLE_STATUSES)}) LOCK IN SHARE MODE`.execute(trx);
  return r.rows.length === taskIds.length;
}

/** Multi-row inserts of at most INSERT_ROWS rows and about INSERT_CHARS characters each. */
function insertBatches(lines: LogLine[]): LogLine[][] {
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
  return batches;
}
