import type { Kysely } from 'kysely';
import type { Database } from '../../db/types.js';

/** Failed sign-ins per account and per address, kept in the database so every node sees them. */
export class AuthFailuresRepository {
  constructor(private readonly db: Kysely<Database>) {}

  find(key: string) {
    return this.db.selectFrom('auth_failure').selectAll().where('key', '=', key).executeTakeFirst();
  }

  async record(key: string, now: string, windowStart: string): Promise<void> {
    const row = await this.find(key);
    if (!row || row.last_at < windowStart) {
      await this.db
        .insertInto('auth_failure')
        .values({ key, count: 1, first_at: now, last_at: now })
        .onConflict((oc) => oc.column('key').doUpdateSet({ count: 1, first_at: now, last_at: now }))
        .execute();
      return;
    }
    await this.db
      .updateTable('auth_failure')
      .set((eb) => ({ count: eb('count', '+', 1), last_at: now }))
      .where('key', '=', key)
      .execute();
  }

  async clear(key: string): Promise<void> {
    await this.db.deleteFrom('auth_failure').where('key', '=', key).execute();
  }
}
