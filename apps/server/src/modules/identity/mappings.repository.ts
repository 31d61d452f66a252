import type { Kysely, Selectable } from 'kysely';
import { insertReturningAll } from '../../db/portable.js';
import type { Database, IdentityMappingTable } from '../../db/types.js';

export type MappingRow = Selectable<IdentityMappingTable>;
export type NewMappingRow = Omit<MappingRow, 'id'>;

/** A user's membership in a project, with the mapping that made it (null source: made by hand). */
export interface MembershipRow {
  project_id: number;
  role: string;
  mapped_source: string | null;
  mapped_group: string | null;
}

/** The rules, the mapped memberships and admin grants; the only SQL of group mapping. */
export class MappingsRepository {
  constructor(private readonly db: Kysely<Database>) {}

  list(): Promise<MappingRow[]> {
    return this.db
      .selectFrom('identity_mapping')
      .selectAll()
      .orderBy('source')
      .orderBy('group_name')
      .orderBy('id')
      .execute();
  }

  forSource(source: string): Promise<MappingRow[]> {
    return this.db.selectFrom('identity_mapping').selectAll().where('source', '=', source).orderBy('id').execute();
  }

  find(id: number): Promise<MappingRow | undefined> {
    return this.db.selectFrom('identity_mapping').selectAll().where('id', '=', id).executeTakeFirst();
  }

  insert(row: NewMappingRow): Promise<MappingRow> {
    return insertReturningAll(this.db, 'identity_mapping', row);
  }

  async update(id: number, row: Omit<NewMappingRow, 'created'>): Promise<void> {
    await this.db.updateTable('identity_mapping').set(row).where('id', '=', id).execute();
  }

  async delete(id: number): Promise<boolean> {
    const r = await this.db.deleteFrom('identity_mapping').where('id', '=', id).executeTakeFirst();
    return Number(r.numDeletedRows) > 0;
  }

  async projectExists(id: number): Promise<boolean> {
    return (await this.db.selectFrom('project').select('id').where('id', '=', id).executeTakeFirst()) !== undefined;
  }

  memberships(userId: number): Promise<MembershipRow[]> {
    return this.db
      .selectFrom('project_user')
      .select(['project_id', 'role', 'mapped_source', 'mapped_group'])
      .where('user_id', '=', userId)
      .execute();
  }

  /** False when the user became a member meanwhile (another sign-in, or by hand). */
  async addMapped(
    projectId: number,
    userId: number,
    role: string,
    source: string,
    group: string,
    created: string,
  ): Promise<boolean> {
    try {
      await this.db
        .insertInto('project_user')
        .values({ project_id: projectId, user_id: userId, role, created, mapped_source: source, mapped_group: group })
        .execute();
      return true;
    } catch (err) {
      if (await this.isMember(projectId, userId)) return false;
      throw err;
    }
  }

  /** Changes a membership only while it is still mapped from `source` (not taken over by hand). */
  async updateMapped(projectId: number, userId: number, source: string, role: string, group: string): Promise<boolean> {
    const r = await this.db
      .updateTable('project_user')
      .set({ role, mapped_group: group })
      .where('project_id', '=', projectId)
      .where('user_id', '=', userId)
      .where('mapped_source', '=', source)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }

  async removeMapped(projectId: number, userId: number, source: string): Promise<boolean> {
    const r = await this.db
      .deleteFrom('project_user')
      .where('project_id', '=', projectId)
      .where('user_id', '=', userId)
      .where('mapped_source', '=', source)
      .executeTakeFirst();
    return Number(r.numDeletedRows) > 0;
  }

  async countOwners(projectId: number): Promise<number> {
    const r = await this.db
      .selectFrom('project_user')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('project_id', '=', projectId)
      .where('role', '=', 'owner')
      .executeTakeFirst();
    return Number(r?.n ?? 0);
  }

  adminGrant(userId: number): Promise<{ source: string; group_name: string } | undefined> {
    return this.db
      .selectFrom('identity_admin_grant')
      .select(['source', 'group_name'])
      .where('user_id', '=', userId)
      .executeTakeFirst();
  }

  async setAdminGrant(userId: number, source: string, group: string): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('identity_admin_grant').where('user_id', '=', userId).execute();
      await trx.insertInto('identity_admin_grant').values({ user_id: userId, source, group_name: group }).execute();
    });
  }

  async deleteAdminGrant(userId: number): Promise<void> {
    await this.db.deleteFrom('identity_admin_grant').where('user_id', '=', userId).execute();
  }

  private async isMember(projectId: number, userId: number): Promise<boolean> {
    const row = await this.db
      .selectFrom('project_user')
      .select('id')
      .where('project_id', '=', projectId)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    return row !== undefined;
  }
}
