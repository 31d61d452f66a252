import type { Kysely, Selectable } from 'kysely';
import type { Database, ViewTable } from '../../db/types.js';
import { insertReturningAll } from '../../db/portable.js';

export type ViewRow = Selectable<ViewTable>;

export class ViewsRepository {
  constructor(private readonly db: Kysely<Database>) {}

  list(projectId: number): Promise<ViewRow[]> {
    return this.db.selectFrom('view').selectAll().where('project_id', '=', projectId).orderBy('position').orderBy('id').execute();
  }

  find(projectId: number, id: number): Promise<ViewRow | undefined> {
    return this.db.selectFrom('view').selectAll().where('project_id', '=', projectId).where('id', '=', id).executeTakeFirst();
  }

  insert(projectId: number, title: string, position: number): Promise<ViewRow> {
    return insertReturningAll(this.db, 'view', { project_id: projectId, title, position });
  }

  async update(projectId: number, id: number, values: Partial<Pick<ViewRow, 'title' | 'position'>>): Promise<void> {
    await this.db.updateTable('view').set(values).where('project_id', '=', projectId).where('id', '=', id).execute();
  }

  async delete(projectId: number, id: number): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx.updateTable('template').set({ view_id: null }).where('project_id', '=', projectId).where('view_id', '=', id).execute();
      await trx.deleteFrom('view').where('project_id', '=', projectId).where('id', '=', id).execute();
    });
  }
}
