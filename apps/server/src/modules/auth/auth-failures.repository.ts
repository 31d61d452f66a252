import { sql, type Kysely } from 'kysely';
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
    const row = await this.db
      .insertInto('auth_failure')
      .values({ key, count: 1, first_at: now, last_at: now })
      .onConflict((oc) =>
        oc.column('key').doUpdateSet({
          count: sql<number>`CASE WHEN ${stale} THEN 1 ELSE auth_failure.count + 1 END`,
          first_at: sql<string>`CASE WHEN ${stale} THEN ${now} ELSE auth_failure.first_at END`,
          last_at: now,
        }),
      )
      .returning('count')
      .executeTakeFirstOrThrow();
    return Number(row.count);
  }

  async clear(key: string): Promise<void> {
    await this.db.deleteFrom('auth_failure').where('key', '=', key).execute();
  }
}
