import {
  MysqlAdapter,
  type Generated,
  type Insertable,
  type Kysely,
  type KyselyPlugin,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  type QueryResult,
  type RootOperationNode,
  type Selectable,
  type UnknownRow,
} from 'kysely';
import type { Database } from './types.js';

/**
 * The few statements whose SQL differs between the engines, for repositories, which hold a Kysely
 * (or a transaction) and not the engine's name: SQLite and PostgreSQL answer `INSERT … RETURNING`
 * and `ON CONFLICT`, MySQL/MariaDB answer neither. MariaDB has RETURNING, MySQL 8 has not.
 */

/** Whether the database is MySQL or MariaDB (also inside a transaction). */
export function isMysql(db: Kysely<Database>): boolean {
  return db.getExecutor().adapter instanceof MysqlAdapter;
}

/** Tables whose rows are identified by an auto-increment `id`. */
type TableWithId = {
  [T in keyof Database]: Selectable<Database[T]> extends { id: number } ? T : never;
}[keyof Database];

/** A Kysely with the table's type erased, for the one `where id =` the generic code needs. */
type ById = Kysely<Record<string, { id: Generated<number> }>>;

/**
 * Inserts one row and answers it as stored (defaults filled in). Where RETURNING is missing
 * (MySQL), it reads the row back by the insert id, on the same connection when `db` is a
 * transaction.
 */
export async function insertReturningAll<T extends TableWithId>(
  db: Kysely<Database>,
  table: T,
  values: Insertable<Database[T]>,
): Promise<Selectable<Database[T]>> {
  const insert = db.insertInto(table).values(values);
  if (!isMysql(db)) return (await insert.returningAll().executeTakeFirstOrThrow()) as Selectable<Database[T]>;
  const { insertId } = await insert.executeTakeFirstOrThrow();
  if (insertId === undefined) throw new Error(`insert into ${table} gave no id`);
  const row = await (db as unknown as ById)
    .selectFrom(table as string)
    .selectAll()
    .where('id', '=', Number(insertId))
    .executeTakeFirstOrThrow();
  return row as unknown as Selectable<Database[T]>;
}

/** Inserts one row and answers its new id. */
export async function insertReturningId<T extends TableWithId>(
  db: Kysely<Database>,
  table: T,
  values: Insertable<Database[T]>,
): Promise<number> {
  if (!isMysql(db)) {
    const row = await (db as unknown as ById)
      .insertInto(table as string)
      .values(values as unknown as { id?: number })
      .returning('id')
      .executeTakeFirstOrThrow();
    return row.id;
  }
  const { insertId } = await db.insertInto(table).values(values).executeTakeFirstOrThrow();
  if (insertId === undefined) throw new Error(`insert into ${table} gave no id`);
  return Number(insertId);
}

/**
 * Inserts the row unless a row with the same primary or unique key exists; answers whether it
 * inserted. The insert itself is the check, so of two racing inserts exactly one gets true:
 * `ON CONFLICT DO NOTHING` on SQLite and PostgreSQL; on MySQL a duplicate-key error caught (not
 * `INSERT IGNORE`, which would also turn a foreign-key or a too-long-value error into `false`).
 */
export async function insertUnlessDuplicate<T extends keyof Database>(
  db: Kysely<Database>,
  table: T,
  values: Insertable<Database[T]>,
): Promise<boolean> {
  const insert = db.insertInto(table).values(values);
  if (!isMysql(db)) {
    const r = await insert.onConflict((oc) => oc.doNothing()).executeTakeFirst();
    return Number(r.numInsertedOrUpdatedRows ?? 0) > 0;
  }
  try {
    await insert.execute();
    return true;
  } catch (e) {
    if (isDuplicateKey(e)) return false;
    throw e;
  }
}

/** MySQL's "Duplicate entry … for key …" (ER_DUP_ENTRY, 1062). */
export function isDuplicateKey(e: unknown): boolean {
  return typeof e === 'object' && e !== null && 'errno' in e && e.errno === 1062;
}

/**
 * On MySQL/MariaDB connections: a statement with RETURNING fails before it is sent. MySQL 8
 * refuses it; MariaDB runs it, but Kysely's MySQL driver drops the rows it answers, so the caller
 * would silently get none. `insertReturningAll` and `insertReturningId` work on every engine.
 */
export class NoReturningPlugin implements KyselyPlugin {
  transformQuery({ node }: PluginTransformQueryArgs): RootOperationNode {
    if ('returning' in node && node.returning) {
      throw new Error('RETURNING does not work on MySQL: use insertReturningAll or insertReturningId (db/portable.ts)');
    }
    return node;
  }

  async transformResult({ result }: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return result;
  }
}
