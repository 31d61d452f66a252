import { sql, type Kysely, type RawBuilder } from 'kysely';
import { isMysql } from '../../db/portable.js';
import type { Database } from '../../db/types.js';

/**
 * Sign-in attempts per account and per address, kept in the database so every node sees them.
 * An attempt is counted (reserved) before its password or code is checked, so attempts arriving
 * at once cannot all be checked against a count none of them has raised yet.
 */
export class AuthFailuresRepository {
  constructor(private readonly db: Kysely<Database>) {}

  find(key: string) {
    return this.db.selectFrom('auth_failure').selectAll().where('key', '=', key).executeTakeFirst();
  }

  /**
   * Counts one more attempt unless `limit` are already counted since `windowStart` (a count older
   * than that starts afresh); answers the attempt's number (1 for the first), or null when it is
   * refused, and then changes nothing (so refused attempts do not prolong a lock). One statement,
   * so of attempts racing for the last place exactly one gets it.
   */
  async reserve(key: string, limit: number, now: string, windowStart: string): Promise<number | null> {
    const stale = sql<boolean>`auth_failure.last_at < ${windowStart}`;
    const values = { key, count: 1, first_at: now, last_at: now };
    if (isMysql(this.db)) return this.reserveMysql(values, limit, stale);
    const row = await this.db
      .insertInto('auth_failure')
      .values(values)
      .onConflict((oc) =>
        oc
          .column('key')
          .doUpdateSet({
            count: sql<number>`CASE WHEN ${stale} THEN 1 ELSE auth_failure.count + 1 END`,
            first_at: sql<string>`CASE WHEN ${stale} THEN ${now} ELSE auth_failure.first_at END`,
            last_at: now,
          })
          // No row updated, none returned: the attempt is refused.
          .where(sql<boolean>`${stale} OR auth_failure.count < ${limit}`),
      )
      .returning('count')
      .executeTakeFirst();
    return row ? Number(row.count) : null;
  }

  /**
   * MySQL has neither RETURNING nor a condition on ON DUPLICATE KEY UPDATE: the update keeps the
   * row as it is when refused, and `LAST_INSERT_ID(n)` hands the new count (0 when refused) to the
   * `SELECT LAST_INSERT_ID()` that follows on the same connection. A new row leaves it as set
   * before, at 1. The assignments run left to right, each seeing the ones before: `count` first
   * (its `stale` reads the old `last_at`), `last_at` last (it reads the verdict `count` left).
   */
  private reserveMysql(
    values: { key: string; count: number; first_at: string; last_at: string },
    limit: number,
    stale: RawBuilder<boolean>,
  ): Promise<number | null> {
    return this.db.connection().execute(async (conn) => {
      await sql`SELECT LAST_INSERT_ID(1)`.execute(conn);
      await conn
        .insertInto('auth_failure')
        .values(values)
        .onDuplicateKeyUpdate({
          count: sql<number>`CASE WHEN ${stale} THEN LAST_INSERT_ID(1)
            WHEN auth_failure.count < ${limit} THEN LAST_INSERT_ID(auth_failure.count + 1)
            ELSE auth_failure.count + LAST_INSERT_ID(0) END`,
          first_at: sql<string>`CASE WHEN ${stale} THEN ${values.first_at} ELSE auth_failure.first_at END`,
          last_at: sql<string>`CASE WHEN LAST_INSERT_ID() > 0 THEN ${values.last_at} ELSE auth_failure.last_at END`,
        })
        .execute();
      const { rows } = await sql<{ n: number | string }>`SELECT LAST_INSERT_ID() AS n`.execute(conn);
      const n = Number(rows[0]?.n ?? 0);
      return n > 0 ? n : null;
    });
  }

  /** Gives back one reserved attempt (one that succeeded, or was not checked after all). */
  async release(key: string): Promise<void> {
    await this.db
      .updateTable('auth_failure')
      .set({ count: sql<number>`auth_failure.count - 1` })
      .where('key', '=', key)
      .where('count', '>', 0)
      .execute();
    // A count back at nothing is no row: successful sign-ins leave none behind.
    await this.db.deleteFrom('auth_failure').where('key', '=', key).where('count', '<=', 0).execute();
  }

  async clear(key: string): Promise<void> {
    await this.db.deleteFrom('auth_failure').where('key', '=', key).execute();
  }
}
