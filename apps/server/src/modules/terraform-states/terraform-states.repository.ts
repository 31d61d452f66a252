import type { Kysely, Selectable } from 'kysely';
import type { Database, TerraformStateTable } from '../../db/types.js';

export type TerraformStateRow = Selectable<TerraformStateTable>;

export class TerraformStatesRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /** Newest first, without the state text. */
  list(projectId: number, inventoryId: number): Promise<Array<Omit<TerraformStateRow, 'state'>>> {
    return this.db
      .selectFrom('terraform_state')
      .select(['id', 'project_id', 'inventory_id', 'task_id', 'status', 'created'])
      .where('project_id', '=', projectId)
      .where('inventory_id', '=', inventoryId)
      .orderBy('id', 'desc')
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

  async insert(values: Omit<TerraformStateRow, 'id'>): Promise<void> {
    await this.db.insertInto('terraform_state').values(values).execute();
  }
}
