import type { Kysely, Selectable } from 'kysely';
import type { Database, InventoryTable } from '../../db/types.js';
import { insertReturningAll } from '../../db/portable.js';

export type InventoryRow = Selectable<InventoryTable>;
type Values = Pick<InventoryRow, 'name' | 'type' | 'inventory' | 'ssh_key_id' | 'become_key_id' | 'repository_id'>;

export class InventoriesRepository {
  constructor(private readonly db: Kysely<Database>) {}

  list(projectId: number, filter: { types?: readonly string[]; templateId?: number }): Promise<InventoryRow[]> {
    let q = this.db.selectFrom('inventory').selectAll().where('project_id', '=', projectId);
    if (filter.types) q = q.where('type', 'in', filter.types);
    if (filter.templateId !== undefined) q = q.where('template_id', '=', filter.templateId);
    return q.orderBy('name').orderBy('id').execute();
  }

  find(projectId: number, id: number): Promise<InventoryRow | undefined> {
    return this.db.selectFrom('inventory').selectAll().where('project_id', '=', projectId).where('id', '=', id).executeTakeFirst();
  }

  insert(projectId: number, values: Values, created: string): Promise<InventoryRow> {
    return insertReturningAll(this.db, 'inventory', { ...values, project_id: projectId, template_id: null, created });
  }

  async update(projectId: number, id: number, values: Values): Promise<void> {
    await this.db.updateTable('inventory').set(values).where('project_id', '=', projectId).where('id', '=', id).execute();
  }

  async setTemplate(projectId: number, id: number, templateId: number | null): Promise<void> {
    await this.db.updateTable('inventory').set({ template_id: templateId }).where('project_id', '=', projectId).where('id', '=', id).execute();
  }

  async delete(projectId: number, id: number): Promise<void> {
    await this.db.deleteFrom('inventory').where('project_id', '=', projectId).where('id', '=', id).execute();
  }
}
