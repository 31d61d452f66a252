import type { Kysely, Selectable } from 'kysely';
import type { Database, InventoryTable } from '../../db/types.js';
import { insertReturningAll } from '../../db/portable.js';

export type InventoryRow = Selectable<InventoryTable>;
type Values = Pick<InventoryRow, 'name' | 'type' | 'inventory' | 'ssh_key_id' | 'become_key_id' | 'repository_id'> & {
  git_branch?: string | null;
};

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
    return insertReturningAll(this.db, 'inventory', { ...stored(values), project_id: projectId, template_id: null, created });
  }

  async update(projectId: number, id: number, values: Values): Promise<void> {
    await this.db.updateTable('inventory').set(stored(values)).where('project_id', '=', projectId).where('id', '=', id).execute();
  }

  /** The outcome of a read of a `file` or `url` inventory: its time on success, the reason on failure. */
  async recordRead(projectId: number, id: number, at: string, error: string | null): Promise<void> {
    await this.db
      .updateTable('inventory')
      .set(error === null ? { last_read_at: at, last_error: null } : { last_error: error })
      .where('project_id', '=', projectId)
      .where('id', '=', id)
      .execute();
  }

  async setTemplate(projectId: number, id: number, templateId: number | null): Promise<void> {
    await this.db.updateTable('inventory').set({ template_id: templateId }).where('project_id', '=', projectId).where('id', '=', id).execute();
  }

  async delete(projectId: number, id: number): Promise<void> {
    await this.db.deleteFrom('inventory').where('project_id', '=', projectId).where('id', '=', id).execute();
  }
}

/** Only a file inventory in a repository (its own or the template's) keeps a branch; empty is none (the repository's own). */
function stored(v: Values): Values {
  return { ...v, git_branch: v.type === 'file' && !v.inventory.startsWith('/') ? v.git_branch || null : null };
}
