import type { Kysely, Selectable } from 'kysely';
import type { AccessKeyTable, Database } from '../../db/types.js';
import { insertReturningAll } from '../../db/portable.js';

export type KeyRow = Selectable<AccessKeyTable>;

/** Every query is scoped by project: a key id alone never finds a row. */
export class KeysRepository {
  constructor(private readonly db: Kysely<Database>) {}

  list(projectId: number): Promise<KeyRow[]> {
    return this.db.selectFrom('access_key').selectAll().where('project_id', '=', projectId).orderBy('name').orderBy('id').execute();
  }

  find(projectId: number, id: number): Promise<KeyRow | undefined> {
    return this.db.selectFrom('access_key').selectAll().where('project_id', '=', projectId).where('id', '=', id).executeTakeFirst();
  }

  insert(row: Omit<KeyRow, 'id'>): Promise<KeyRow> {
    return insertReturningAll(this.db, 'access_key', row);
  }

  async update(projectId: number, id: number, patch: Partial<Pick<KeyRow, 'name' | 'type' | 'secret'>>): Promise<void> {
    await this.db.updateTable('access_key').set(patch).where('project_id', '=', projectId).where('id', '=', id).execute();
  }

  async delete(projectId: number, id: number): Promise<void> {
    await this.db.deleteFrom('access_key').where('project_id', '=', projectId).where('id', '=', id).execute();
  }
}
