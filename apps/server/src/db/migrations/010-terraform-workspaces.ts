import type { Kysely } from 'kysely';
import type { Engine } from '../db.js';
import { idColumn, idType } from './helpers.js';

/**
 * Versions of a Terraform/OpenTofu workspace's state, one per run that changed it. The state
 * text is sealed: state files carry secrets. (Inventories already have `template_id`.)
 */
export async function up(db: Kysely<unknown>, engine: Engine): Promise<void> {
  await db.schema
    .createTable('terraform_state')
    .addColumn('id', idType(engine), idColumn(engine))
    .addColumn('project_id', 'integer', (c) => c.notNull().references('project.id').onDelete('cascade'))
    .addColumn('inventory_id', 'integer', (c) => c.notNull().references('inventory.id').onDelete('cascade'))
    .addColumn('task_id', 'integer', (c) => c.references('task.id').onDelete('set null'))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('created', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('terraform_state_inventory_idx')
    .on('terraform_state')
    .columns(['inventory_id', 'id'])
    .execute();
}
