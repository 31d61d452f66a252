import type { Kysely } from 'kysely';

/**
 * Gantry's Terraform/OpenTofu HTTP state backend:
 * - `terraform_alias`: backend addresses (`/api/terraform/{id}`), each bound to one workspace
 *   inventory and either a login/password key (people, CI) or, for the length of one run, a task
 *   (its sealed one-time password); an alias whose key is deleted stays, locked, until given another;
 * - `terraform_lock`: at most one lock per workspace, with the lock information terraform sent
 *   (a task that holds it keeps it from its plan to its apply);
 * - `terraform_backend`: the workspaces whose tasks keep their state in the backend;
 * - state versions learn their serial, lineage, resource count and the alias that wrote them.
 * Keyed text is a bounded varchar so every engine can index it; state and lock bodies are text.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('terraform_alias')
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('project_id', 'integer', (c) => c.notNull().references('project.id').onDelete('cascade'))
    .addColumn('inventory_id', 'integer', (c) => c.notNull().references('inventory.id').onDelete('cascade'))
    .addColumn('auth_key_id', 'integer', (c) => c.references('access_key.id').onDelete('set null'))
    .addColumn('task_id', 'integer', (c) => c.unique().references('task.id').onDelete('cascade'))
    .addColumn('secret', 'text')
    .addColumn('created', 'varchar(32)', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('terraform_alias_inventory_idx').on('terraform_alias').column('inventory_id').execute();

  await db.schema
    .createTable('terraform_lock')
    .addColumn('inventory_id', 'integer', (c) => c.primaryKey().references('inventory.id').onDelete('cascade'))
    .addColumn('project_id', 'integer', (c) => c.notNull().references('project.id').onDelete('cascade'))
    .addColumn('lock_id', 'varchar(255)', (c) => c.notNull())
    .addColumn('info', 'text', (c) => c.notNull())
    .addColumn('task_id', 'integer', (c) => c.references('task.id').onDelete('cascade'))
    .addColumn('created', 'varchar(32)', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('terraform_backend')
    .addColumn('inventory_id', 'integer', (c) => c.primaryKey().references('inventory.id').onDelete('cascade'))
    .addColumn('project_id', 'integer', (c) => c.notNull().references('project.id').onDelete('cascade'))
    .addColumn('created', 'varchar(32)', (c) => c.notNull())
    .execute();

  await db.schema.alterTable('terraform_state').addColumn('serial', 'integer').execute();
  await db.schema.alterTable('terraform_state').addColumn('lineage', 'varchar(64)').execute();
  await db.schema.alterTable('terraform_state').addColumn('resource_count', 'integer').execute();
  await db.schema.alterTable('terraform_state').addColumn('writer_alias', 'varchar(64)').execute();
}
