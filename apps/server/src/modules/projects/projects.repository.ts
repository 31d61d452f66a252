import type { Kysely, Selectable } from 'kysely';
import type { Database, ProjectTable } from '../../db/types.js';

export type ProjectRow = Selectable<ProjectTable>;
export type ProjectWithRole = ProjectRow & { role: string | null };

export interface ProjectValues {
  name: string;
  type: string;
  alert: boolean;
  alert_chat: string | null;
  max_parallel_tasks: number;
}

export class ProjectsRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /** Every project with the user's role in it (admins: all projects, members: their own). */
  listFor(userId: number, all: boolean): Promise<ProjectWithRole[]> {
    let q = this.db
      .selectFrom('project')
      .leftJoin('project_user', (j) =>
        j.onRef('project_user.project_id', '=', 'project.id').on('project_user.user_id', '=', userId),
      )
      .selectAll('project')
      .select('project_user.role');
    if (!all) q = q.where('project_user.user_id', '=', userId);
    return q.orderBy('project.name').orderBy('project.id').execute();
  }

  findById(id: number): Promise<ProjectRow | undefined> {
    return this.db.selectFrom('project').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async roleOf(projectId: number, userId: number): Promise<string | null> {
    const r = await this.db
      .selectFrom('project_user')
      .select('role')
      .where('project_id', '=', projectId)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    return r?.role ?? null;
  }

  /**
   * Creates the project and makes its creator the owner, in one transaction (the caller's, when
   * this repository already works inside one, as a restore does).
   */
  async insertWithOwner(values: ProjectValues, ownerId: number, created: string): Promise<ProjectRow> {
    const inTransaction = <T>(fn: (trx: Kysely<Database>) => Promise<T>) => (this.db.isTransaction ? fn(this.db) : this.db.transaction().execute(fn));
    return inTransaction(async (trx) => {
      const row = await trx
        .insertInto('project')
        .values({ ...values, alert: +values.alert, created })
        .returningAll()
        .executeTakeFirstOrThrow();
      await trx
        .insertInto('project_user')
        .values({ project_id: row.id, user_id: ownerId, role: 'owner', created })
        .execute();
      return row;
    });
  }

  async update(id: number, values: Omit<ProjectValues, 'type'>): Promise<void> {
    await this.db
      .updateTable('project')
      .set({ ...values, alert: +values.alert })
      .where('id', '=', id)
      .execute();
  }

  async delete(id: number): Promise<void> {
    await this.db.deleteFrom('project').where('id', '=', id).execute();
  }
}
