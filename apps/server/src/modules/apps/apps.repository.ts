import type { Insertable, Kysely, Selectable } from 'kysely';
import type { AppTable, Database } from '../../db/types.js';

export type AppRow = Selectable<AppTable>;
export type AppValues = Omit<Insertable<AppTable>, 'id' | 'created'>;

/** Rows of configured apps: custom apps, and built-ins an admin has changed. */
export class AppsRepository {
  constructor(private readonly db: Kysely<Database>) {}

  list(): Promise<AppRow[]> {
    return this.db.selectFrom('app').selectAll().orderBy('id').execute();
  }

  find(id: string): Promise<AppRow | undefined> {
    return this.db.selectFrom('app').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async insert(id: string, values: AppValues, created: string): Promise<void> {
    await this.db
      .insertInto('app')
      .values({ id, ...values, created })
      .execute();
  }

  async update(id: string, values: Partial<AppValues>): Promise<void> {
    await this.db.updateTable('app').set(values).where('id', '=', id).execute();
  }

  async delete(id: string): Promise<void> {
    await this.db.deleteFrom('app').where('id', '=', id).execute();
  }
}
