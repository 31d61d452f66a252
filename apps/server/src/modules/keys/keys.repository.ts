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

  /** Whether a Terraform backend alias opens with this key's login and password. */
  async usedByTerraformAlias(projectId: number, id: number): Promise<boolean> {
    const row = await this.db.selectFrom('terraform_alias').select('id').where('project_id', '=', projectId).where('auth_key_id', '=', id).executeTakeFirst();
    return row !== undefined;
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
