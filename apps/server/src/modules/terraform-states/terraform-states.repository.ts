import type { Kysely, Selectable } from 'kysely';
import type { Database, TerraformStateTable } from '../../db/types.js';
import { insertReturningId } from '../../db/portable.js';

export type TerraformStateRow = Selectable<TerraformStateTable>;
/** A version as listed: without its state text, with the current status of the task that wrote it. */
export type TerraformStateListRow = Omit<TerraformStateRow, 'state'> & { task_status: string | null };

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
