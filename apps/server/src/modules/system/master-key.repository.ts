import { sql, type Kysely } from 'kysely';
import { insertUnlessDuplicate } from '../../db/portable.js';
import type { Database } from '../../db/types.js';

/**
 * Every column sealed with the master key (SecretBox). The start-up check and `gantry rekey`
 * read this list: a new sealed column must be added here, or a rekey leaves it unreadable.
 */
export const SEALED_COLUMNS = [
  { table: 'access_key', column: 'secret' },
  { table: 'environment_secret', column: 'secret' },
  { table: 'user_totp', column: 'secret' },
  { table: 'task', column: 'secret' },
  { table: 'terraform_state', column: 'state' },
] as const satisfies readonly { table: keyof Database; column: string }[];

export interface SealedValue {
  /** `table.column`, to say where a value that does not open lives (never the value). */
  where: string;
  sealed: string;
}

/** Rows re-sealed per query: large Terraform states stay out of memory all at once. */
const BATCH = 100;

/** The only SQL about the master key: its check value and the walk over sealed columns. */
export class MasterKeyRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async check(): Promise<string | undefined> {
    const row = await this.db.selectFrom('master_key_check').select('sealed').where('id', '=', 1).executeTakeFirst();
    return row?.sealed;
  }

  /** Stores the check value unless one is there already (another node may have won the race). */
  async insertCheck(sealed: string, created: string): Promise<void> {
    await insertUnlessDuplicate(this.db, 'master_key_check', { id: 1, sealed, created });
  }

  /** The oldest sealed value of each column that has one. */
  async oldestSealed(): Promise<SealedValue[]> {
    const out: SealedValue[] = [];
    for (const { table, column } of SEALED_COLUMNS) {
      const { rows } = await sql<{
        value: string;
      }>`SELECT ${sql.ref(column)} AS value FROM ${sql.table(table)} WHERE ${sql.ref(column)} IS NOT NULL ORDER BY id LIMIT 1`.execute(
        this.db,
      );
      if (rows[0]) out.push({ where: `${table}.${column}`, sealed: rows[0].value });
    }
    return out;
  }

  /**
   * In one transaction: replaces the check value by `check(current)` and every sealed value by
   * `reseal(value)`. Whatever throws rolls everything back. Answers how many values changed.
   */
  async resealAll(
    reseal: (v: SealedValue) => string,
    check: (current: string | undefined) => string,
    created: string,
  ): Promise<number> {
    return this.db.transaction().execute(async (trx) => {
      // The check value first: a wrong current key fails before any work.
      const current = await trx.selectFrom('master_key_check').select('sealed').where('id', '=', 1).executeTakeFirst();
      const sealed = check(current?.sealed);
      let count = 0;
      for (const { table, column } of SEALED_COLUMNS) {
        let last = 0;
        for (;;) {
          const { rows } = await sql<{
            id: number;
            value: string;
          }>`SELECT id, ${sql.ref(column)} AS value FROM ${sql.table(table)}
            WHERE ${sql.ref(column)} IS NOT NULL AND id > ${last} ORDER BY id LIMIT ${BATCH}`.execute(trx);
          for (const row of rows) {
            const value = reseal({ where: `${table}.${column}`, sealed: row.value });
            await sql`UPDATE ${sql.table(table)} SET ${sql.ref(column)} = ${value} WHERE id = ${row.id}`.execute(trx);
            count += 1;
          }
          if (rows.length < BATCH) break;
          last = rows[rows.length - 1]!.id;
        }
      }
      if (current) await trx.updateTable('master_key_check').set({ sealed }).where('id', '=', 1).execute();
      else await trx.insertInto('master_key_check').values({ id: 1, sealed, created }).execute();
      return count;
    });
  }
}
