import type { Kysely } from 'kysely';
import type { Engine } from '../db.js';
import { keyText } from './helpers.js';

/**
 * Inventories read from a repository branch or a URL, and the hosts view:
 * - `inventory.git_branch`: a `file` inventory's branch (null: the repository's own);
 *   `last_read_at` / `last_error`: the outcome of the last read of a `file` or `url` inventory.
 * - `task_host`: how each host of an Ansible task's PLAY RECAP did (one row per task and host);
 *   the hosts view reads a host's last tasks, the task list filters by host.
 */
export async function up(db: Kysely<unknown>, engine: Engine): Promise<void> {
  await db.schema.alterTable('inventory').addColumn('git_branch', 'varchar(255)').execute();
  await db.schema.alterTable('inventory').addColumn('last_read_at', 'varchar(32)').execute();
  await db.schema.alterTable('inventory').addColumn('last_error', 'text').execute();

  await db.schema
    .createTable('task_host')
    .addColumn('task_id', 'integer', (c) => c.notNull().references('task.id').onDelete('cascade'))
    .addColumn('project_id', 'integer', (c) => c.notNull().references('project.id').onDelete('cascade'))
    .addColumn('host', keyText(engine, 255), (c) => c.notNull())
    .addColumn('ok', 'integer', (c) => c.notNull())
    .addColumn('changed', 'integer', (c) => c.notNull())
    .addColumn('unreachable', 'integer', (c) => c.notNull())
    .addColumn('failed', 'integer', (c) => c.notNull())
    .addColumn('skipped', 'integer', (c) => c.notNull())
    .addColumn('rescued', 'integer', (c) => c.notNull())
    .addColumn('ignored', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('task_host_pk', ['task_id', 'host'])
    .execute();
  await db.schema.createIndex('task_host_project_idx').on('task_host').columns(['project_id', 'host']).execute();
}
