import type { Kysely, Selectable } from 'kysely';
import type { Database, TerraformDriftTable, TerraformPlanTable } from '../../db/types.js';

export type TerraformPlanRow = Selectable<TerraformPlanTable>;
export type TerraformDriftRow = Selectable<TerraformDriftTable>;
export type PlanWithConfirmer = TerraformPlanRow & { confirmer_name: string | null };

/** The SQL of plan summaries and drift findings (tables of migration 037); portable upserts (update, else insert). */
export class TerraformPlansRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /** One plan row per task: a second plan of the same task (a retry) replaces the first. */
  async upsertPlan(row: TerraformPlanRow): Promise<void> {
    const { task_id, ...rest } = row;
    const update = () =>
      this.db.updateTable('terraform_plan').set(rest).where('task_id', '=', task_id).executeTakeFirst();
    if (Number((await update()).numUpdatedRows) > 0) return;
    try {
      await this.db.insertInto('terraform_plan').values(row).execute();
    } catch (e) {
      // Inserted meanwhile by another writer: theirs is replaced, as an update would have.
      if (Number((await update()).numUpdatedRows) === 0) throw e;
    }
  }

  findPlan(projectId: number, taskId: number): Promise<PlanWithConfirmer | undefined> {
    return this.db
      .selectFrom('terraform_plan')
      .leftJoin('user', 'user.id', 'terraform_plan.confirmed_by')
      .selectAll('terraform_plan')
      .select('user.name as confirmer_name')
      .where('terraform_plan.project_id', '=', projectId)
      .where('terraform_plan.task_id', '=', taskId)
      .executeTakeFirst();
  }

  async setConfirmed(taskId: number, userId: number | null, at: string): Promise<void> {
    await this.db
      .updateTable('terraform_plan')
      .set({ confirmed_by: userId, confirmed_at: at })
      .where('task_id', '=', taskId)
      .execute();
  }

  findDrift(scope: string): Promise<TerraformDriftRow | undefined> {
    return this.db.selectFrom('terraform_drift').selectAll().where('scope', '=', scope).executeTakeFirst();
  }

  async upsertDrift(row: TerraformDriftRow): Promise<void> {
    const { scope, ...rest } = row;
    const update = () => this.db.updateTable('terraform_drift').set(rest).where('scope', '=', scope).executeTakeFirst();
    if (Number((await update()).numUpdatedRows) > 0) return;
    try {
      await this.db.insertInto('terraform_drift').values(row).execute();
    } catch (e) {
      if (Number((await update()).numUpdatedRows) === 0) throw e;
    }
  }

  /** Every finding of a project's templates (one query for a list), or of some of them. */
  driftOfTemplates(projectId: number, templateIds?: number[]): Promise<TerraformDriftRow[]> {
    if (templateIds && !templateIds.length) return Promise.resolve([]);
    let q = this.db.selectFrom('terraform_drift').selectAll().where('project_id', '=', projectId);
    if (templateIds) q = q.where('template_id', 'in', templateIds);
    return q.execute();
  }

  driftOfInventories(projectId: number, inventoryIds: number[]): Promise<TerraformDriftRow[]> {
    if (!inventoryIds.length) return Promise.resolve([]);
    return this.db
      .selectFrom('terraform_drift')
      .selectAll()
      .where('project_id', '=', projectId)
      .where('inventory_id', 'in', inventoryIds)
      .execute();
  }
}
