import type { Kysely } from 'kysely';

/**
 * A template's variable groups (merged in order, later wins) and inventories (repeated `-i`, in
 * order), as JSON lists of ids whose first is environment_id / inventory_id. Null: the one
 * environment_id / inventory_id alone (every template before this migration).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('template').addColumn('environment_ids', 'text').execute();
  await db.schema.alterTable('template').addColumn('inventory_ids', 'text').execute();
}
