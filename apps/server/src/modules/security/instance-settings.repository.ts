import type { Kysely } from 'kysely';
import { isMysql } from '../../db/portable.js';
import type { Database } from '../../db/types.js';

/** The only SQL about instance-wide settings (one JSON value per key). */
export class InstanceSettingsRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /** The stored JSON text of `key`, or undefined when it was never set. */
  async get(key: string): Promise<string | undefined> {
    const row = await this.db.selectFrom('instance_setting').select('value').where('key', '=', key).executeTakeFirst();
    return row?.value;
  }

  /** Sets `key` in one statement, so two admins saving at once leave one of their values, never an error. */
  async set(key: string, value: string, at: string): Promise<void> {
    const insert = this.db.insertInto('instance_setting').values({ key, value, updated: at });
    if (isMysql(this.db)) {
      await insert.onDuplicateKeyUpdate({ value, updated: at }).execute();
      return;
    }
    await insert.onConflict((oc) => oc.column('key').doUpdateSet({ value, updated: at })).execute();
  }
}
