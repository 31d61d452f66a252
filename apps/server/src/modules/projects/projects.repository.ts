import type { Kysely, Selectable } from 'kysely';
import type { Database, ProjectTable } from '../../db/types.js';
import { insertReturningAll } from '../../db/portable.js';

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

  /**
   * Whether the project exists and the user's role in it, in one query: every project request
   * asks it first, so it costs one round trip, not two.
   */
  async membershipOf(projectId: number, userId: number): Promise<{ role: string | null } | undefined> {
    return this.db
      .selectFrom('project')
      .leftJoin('project_user', (j) =>
        j.onRef('project_user.project_id', '=', 'project.id').on('project_user.user_id', '=', userId),
      )
      .select('project_user.role')
      .where('project.id', '=', projectId)
      .executeTakeFirst();
  }

  /**
   * Creates the project and makes its creator the owner, in one transaction (the caller's, when
   * this repository already works inside one, as a restore does).
   */
  async insertWithOwner(values: ProjectValues, ownerId: number, created: string): Promise<ProjectRow> {
    const inTransaction = <T>(fn: (trx: Kysely<Database>) => Promise<T>) =>
      this.db.isTransaction ? fn(this.db) : this.db.transaction().execute(fn);
    return inTransaction(async (trx) => {
      const row = await insertReturningAll(trx, 'project', { ...values, alert: +values.alert, created });
      await trx
        .insertInto('project_user')
        .values({ project_id: row.id, user_id: ownerId, role: 'owner', created })
        .execute();
      return row;
    });
  }

  /** `managed_by_code` left undefined keeps the stored flag. */
  async update(id: number, values: Omit<ProjectValues, 'type'> & { managed_by_code?: boolean }): Promise<void> {
    const { managed_by_code, ...rest } = values;
    await this.db
      .updateTable('project')
      .set({
        ...rest,
        alert: +rest.alert,
        ...(managed_by_code === undefined ? {} : { managed_by_code: +managed_by_code }),
      })
      .where('id', '=', id)
      .execute();
  }

  /**
   * Deletes the project and everything in it. Most rows go by their foreign keys' cascade, but
   * rows that reference each other inside the project without one (a template's repository,
   * build template or inventory, an integration's template) go first, dependents before what
   * they use: MySQL checks each row as a cascade reaches it, where SQLite and PostgreSQL check
   * at the end of the statement.
   */
  async delete(id: number): Promise<void> {
    const inTransaction = <T>(fn: (trx: Kysely<Database>) => Promise<T>) =>
      this.db.isTransaction ? fn(this.db) : this.db.transaction().execute(fn);
    await inTransaction(async (trx) => {
      await trx.updateTable('template').set({ build_template_id: null }).where('project_id', '=', id).execute();
      for (const table of [
        'integration',
        'schedule',
        'task',
        'template',
        'inventory',
        'repository',
        'environment',
      ] as const) {
        await trx.deleteFrom(table).where('project_id', '=', id).execute();
      }
      await trx.deleteFrom('project').where('id', '=', id).execute();
    });
  }
}
