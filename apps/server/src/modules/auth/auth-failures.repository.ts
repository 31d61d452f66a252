import { sql, type Kysely } from 'kysely';
import { isMysql } from '../../db/portable.js';
import type { Database } from '../../db/types.js';

/** Failed sign-ins per account and per address, kept in the database so every node sees them. */
export class AuthFailuresRepository {
  constructor(private readonly db: Kysely<Database>) {}

  find(key: string) {
    return this.db.selectFrom('auth_failure').selectAll().where('key', '=', key).executeTakeFirst();
  }

  /**
   * Counts one more failure, starting afresh when the last one is older than `windowStart`;
   * answers the new count. One upsert, so failures arriving at once are each counted and each
   * see their own count (the one that reaches a limit is the only one to see it).
   */
  async record(key: string, now: string, windowStart: string): Promise<number> {
    const stale = sql<boolean>`auth_failure.last_at < ${windowStart}`;
    // In this order: MySQL evaluates the assignments left to right, so `last_at` comes last.
    const update = {
      count: sql<number>`CASE WHEN ${stale} THEN 1 ELSE auth_failure.count + 1 END`,
      first_at: sql<string>`CASE WHEN ${stale} THEN ${now} ELSE auth_failure.first_at END`,
      last_at: now,
    };
    const values = { key, count: 1, first_at: now, last_at: now };
    if (isMysql(this.db)) {
      // No RETURNING: the upsert and the read share a transaction, and the row lock the upsert
      // takes keeps a racing failure's update out until this one has read its count.
      return this.db.transaction().execute(async (trx) => {
        await trx.insertInto('auth_failure').values(values).onDuplicateKeyUpdate(update).execute();
        const row = await trx
          .selectFrom('auth_failure')
          .select('count')
          .where('key', '=', key)
          .executeTakeFirstOrThrow();
        return Number(row.count);
      });
    }
    const row = await this.db
      .insertInto('auth_failure')
      .values(values)
      .onConflict((oc) => oc.column('key').doUpdateSet(update))
      .returning('count')
      .executeTakeFirstOrThrow();
    return Number(row.count);
  }

  async clear(key: string): Promise<void> {
    await this.db.deleteFrom('auth_failure').where('key', '=', key).execute();
  }
}
