import type { Kysely, Selectable } from 'kysely';
import type { Database, TemplateTable, TemplateVaultTable } from '../../db/types.js';
import { insertReturningAll } from '../../db/portable.js';
import { selectTasksWithNames, withBuildTasks, type TaskWithNames } from '../tasks/tasks.repository.js';

export type TemplateRow = Selectable<TemplateTable>;
export type VaultRow = Selectable<TemplateVaultTable>;
export type TemplateValues = Omit<TemplateRow, 'id' | 'project_id' | 'created'>;
export interface TemplateWithExtras extends TemplateRow {
  vaults: VaultRow[];
  last_task: TaskWithNames | null;
}

export class TemplatesRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async list(projectId: number, filter: { app?: string; viewId?: number }): Promise<TemplateWithExtras[]> {
    let q = this.db.selectFrom('template').selectAll().where('project_id', '=', projectId);
    if (filter.app) q = q.where('app', '=', filter.app);
    if (filter.viewId !== undefined) q = q.where('view_id', '=', filter.viewId);
    const rows = await q.orderBy('name').orderBy('id').execute();
    return this.withExtras(projectId, rows);
  }

  async find(projectId: number, id: number): Promise<TemplateWithExtras | undefined> {
    const row = await this.db
      .selectFrom('template')
      .selectAll()
      .where('project_id', '=', projectId)
      .where('id', '=', id)
      .executeTakeFirst();
    return row ? (await this.withExtras(projectId, [row]))[0] : undefined;
  }

  /** A template with its vaults, without its newest task: what starting a task needs (one query less on the hot path). */
  async findForTask(projectId: number, id: number): Promise<TemplateWithExtras | undefined> {
    const row = await this.db
      .selectFrom('template')
      .selectAll()
      .where('project_id', '=', projectId)
      .where('id', '=', id)
      .executeTakeFirst();
    if (!row) return undefined;
    const vaults = await this.db
      .selectFrom('template_vault')
      .selectAll()
      .where('project_id', '=', projectId)
      .where('template_id', '=', id)
      .orderBy('id')
      .execute();
    return { ...row, vaults, last_task: null };
  }

  /** The ids of the deploy templates that start by themselves after a successful build of `buildTemplateId`. */
  async autorunDeployIds(projectId: number, buildTemplateId: number): Promise<number[]> {
    const rows = await this.db
      .selectFrom('template')
      .select('id')
      .where('project_id', '=', projectId)
      .where('build_template_id', '=', buildTemplateId)
      .where('type', '=', 'deploy')
      .where('autorun', '=', 1)
      .orderBy('name')
      .orderBy('id')
      .execute();
    return rows.map((r) => r.id);
  }

  /** Vaults and the newest task of each template (with its build task), in three queries for the whole list. */
  private async withExtras(projectId: number, rows: TemplateRow[]): Promise<TemplateWithExtras[]> {
    if (rows.length === 0) return [];
    const ids = rows.map((r) => r.id);
    const vaults = await this.db
      .selectFrom('template_vault')
      .selectAll()
      .where('project_id', '=', projectId)
      .where('template_id', 'in', ids)
      .orderBy('id')
      .execute();
    const last = await withBuildTasks(
      this.db,
      await selectTasksWithNames(this.db)
        .where('task.project_id', '=', projectId)
        // Each template's newest task by one backward step on the (template_id, id) index: a
        // max() grouped by template reads every task of the template on PostgreSQL and MySQL.
        .where('task.id', 'in', (eb) =>
          eb
            .selectFrom('template as listed')
            .select((e) =>
              e
                .selectFrom('task as newest')
                .select('newest.id')
                .whereRef('newest.template_id', '=', 'listed.id')
                .orderBy('newest.id', 'desc')
                .limit(1)
                .as('id'),
            )
            .where('listed.id', 'in', ids),
        )
        .execute(),
    );
    return rows.map((r) => {
      const t = last.find((x) => x.template_id === r.id);
      return { ...r, vaults: vaults.filter((v) => v.template_id === r.id), last_task: t ?? null };
    });
  }

  insert(projectId: number, values: TemplateValues, created: string): Promise<TemplateRow> {
    return insertReturningAll(this.db, 'template', { ...values, project_id: projectId, created });
  }

  async update(projectId: number, id: number, values: Partial<TemplateValues>): Promise<void> {
    await this.db
      .updateTable('template')
      .set(values)
      .where('project_id', '=', projectId)
      .where('id', '=', id)
      .execute();
  }

  async delete(projectId: number, id: number): Promise<void> {
    await this.db.deleteFrom('template').where('project_id', '=', projectId).where('id', '=', id).execute();
  }

  async replaceVaults(
    projectId: number,
    templateId: number,
    vaults: Array<Omit<VaultRow, 'id' | 'project_id' | 'template_id'>>,
  ): Promise<void> {
    await this.db
      .deleteFrom('template_vault')
      .where('project_id', '=', projectId)
      .where('template_id', '=', templateId)
      .execute();
    if (vaults.length === 0) return;
    await this.db
      .insertInto('template_vault')
      .values(vaults.map((v) => ({ ...v, project_id: projectId, template_id: templateId })))
      .execute();
  }
}
