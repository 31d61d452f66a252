import type { Kysely, Selectable } from 'kysely';
import { insertReturningAll } from '../../db/portable.js';
import type { Database } from '../../db/types.js';
import type { WorkflowTable } from '../../db/tables/workflow.js';

export type WorkflowRow = Selectable<WorkflowTable>;

/** The workflow table; every lookup is scoped by project. */
export class WorkflowsRepository {
  constructor(private readonly db: Kysely<Database>) {}

  list(projectId: number): Promise<WorkflowRow[]> {
    return this.db.selectFrom('workflow').selectAll().where('project_id', '=', projectId).orderBy('name').orderBy('id').execute();
  }

  find(projectId: number, id: number): Promise<WorkflowRow | undefined> {
    return this.db.selectFrom('workflow').selectAll().where('project_id', '=', projectId).where('id', '=', id).executeTakeFirst();
  }

  insert(row: Omit<WorkflowRow, 'id'>): Promise<WorkflowRow> {
    return insertReturningAll(this.db, 'workflow', row);
  }

  async update(projectId: number, id: number, values: Pick<WorkflowRow, 'name' | 'description' | 'graph' | 'updated'>): Promise<void> {
    await this.db.updateTable('workflow').set(values).where('project_id', '=', projectId).where('id', '=', id).execute();
  }

  async delete(projectId: number, id: number): Promise<void> {
    await this.db.deleteFrom('workflow').where('project_id', '=', projectId).where('id', '=', id).execute();
  }
}
