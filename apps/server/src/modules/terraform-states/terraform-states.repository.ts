import type { Kysely, Selectable } from 'kysely';
import type { Database, TerraformStateTable } from '../../db/types.js';
import { insertReturningId } from '../../db/portable.js';

export type TerraformStateRow = Selectable<TerraformStateTable>;
/** A version as listed: without its state text, with the current status of the task that wrote it. */
export type TerraformStateListRow = Omit<TerraformStateRow, 'state'> & { task_status: string | null };

/** The plan of a task that wrote a version, and who confirmed it (the user's name when they still exist). */
export interface StatePlanRow {
  task_id: number;
  summary: string;
  confirmed_by: number | null;
  confirmed_at: string | null;
  user_name: string | null;
}

export class TerraformStatesRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /** Newest first, without the state text. */
  list(projectId: number, inventoryId: number): Promise<TerraformStateListRow[]> {
    return this.db
      .selectFrom('terraform_state as s')
      .leftJoin('task as t', 't.id', 's.task_id')
      .select([
        's.id',
        's.project_id',
        's.inventory_id',
        's.task_id',
        's.status',
        's.created',
        's.serial',
        's.lineage',
        's.resource_count',
        's.writer_alias',
        't.status as task_status',
      ])
      .where('s.project_id', '=', projectId)
      .where('s.inventory_id', '=', inventoryId)
      .orderBy('s.id', 'desc')
      .execute();
  }

  /** The plans of the tasks that wrote the workspace's versions: one query for the whole list. */
  plans(projectId: number, inventoryId: number): Promise<StatePlanRow[]> {
    return this.db
      .selectFrom('terraform_plan as p')
      .leftJoin('user as u', 'u.id', 'p.confirmed_by')
      .select(['p.task_id', 'p.summary', 'p.confirmed_by', 'p.confirmed_at', 'u.name as user_name'])
      .where('p.project_id', '=', projectId)
      .where('p.task_id', 'in', (qb) =>
        qb
          .selectFrom('terraform_state as s')
          .select('s.task_id')
          .where('s.project_id', '=', projectId)
          .where('s.inventory_id', '=', inventoryId)
          .where('s.task_id', 'is not', null),
      )
      .execute();
  }

  find(projectId: number, inventoryId: number, id: number): Promise<TerraformStateRow | undefined> {
    return this.db
      .selectFrom('terraform_state')
      .selectAll()
      .where('project_id', '=', projectId)
      .where('inventory_id', '=', inventoryId)
      .where('id', '=', id)
      .executeTakeFirst();
  }

  /** The newest version of a workspace's state (what the HTTP backend answers). */
  latest(projectId: number, inventoryId: number): Promise<TerraformStateRow | undefined> {
    return this.db
      .selectFrom('terraform_state')
      .selectAll()
      .where('project_id', '=', projectId)
      .where('inventory_id', '=', inventoryId)
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirst();
  }

  /** Answers the new version's id. */
  insert(values: Omit<TerraformStateRow, 'id'>): Promise<number> {
    return insertReturningId(this.db, 'terraform_state', values);
  }

  /** Deletes one version, or every version when `id` is null; answers how many went. */
  async delete(projectId: number, inventoryId: number, id: number | null): Promise<number> {
    let q = this.db
      .deleteFrom('terraform_state')
      .where('project_id', '=', projectId)
      .where('inventory_id', '=', inventoryId);
    if (id !== null) q = q.where('id', '=', id);
    const r = await q.executeTakeFirst();
    return Number(r.numDeletedRows);
  }
}
