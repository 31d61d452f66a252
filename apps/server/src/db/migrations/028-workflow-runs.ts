import type { Kysely } from 'kysely';
import type { Engine } from '../db.js';
import { idColumn, idType, keyText } from './helpers.js';

/**
 * Workflow runs, driven through the database: any server node may advance a run while it holds
 * the run's lease (`lease_owner` until `lease_until`), and looks at it again at `due_at`. The graph
 * is copied into the run when it starts, so editing the workflow never changes a run under way.
 *
 * A node's task carries (workflow_run_id, workflow_node, workflow_attempt), unique: two nodes of
 * the cluster starting the same try of a node cannot both insert its task, so no try runs twice.
 * A nested workflow's run is unique the same way on (parent_run_id, parent_node, parent_attempt).
 */
export async function up(db: Kysely<unknown>, engine: Engine): Promise<void> {
  await db.schema
    .createTable('workflow_run')
    .addColumn('id', idType(engine), idColumn(engine))
    .addColumn('project_id', 'integer', (c) => c.notNull().references('project.id').onDelete('cascade'))
    .addColumn('workflow_id', 'integer', (c) => c.notNull())
    .addColumn('workflow_name', 'text', (c) => c.notNull())
    .addColumn('graph', 'text', (c) => c.notNull())
    .addColumn('status', 'varchar(16)', (c) => c.notNull())
    .addColumn('user_id', 'integer')
    .addColumn('parent_run_id', 'integer')
    .addColumn('parent_node', keyText(engine, 64))
    .addColumn('parent_attempt', 'integer')
    .addColumn('schedule_id', 'integer')
    .addColumn('integration_id', 'integer')
    .addColumn('created', 'varchar(32)', (c) => c.notNull())
    .addColumn('ended', 'varchar(32)')
    .addColumn('lease_owner', 'varchar(255)')
    .addColumn('lease_until', 'varchar(32)')
    .addColumn('due_at', 'varchar(32)', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('workflow_run_due_idx').on('workflow_run').columns(['status', 'due_at']).execute();
  await db.schema
    .createIndex('workflow_run_list_idx')
    .on('workflow_run')
    .columns(['project_id', 'workflow_id'])
    .execute();
  await db.schema
    .createIndex('workflow_run_parent_uq')
    .on('workflow_run')
    .columns(['parent_run_id', 'parent_node', 'parent_attempt'])
    .unique()
    .execute();

  await db.schema
    .createTable('workflow_run_node')
    .addColumn('run_id', 'integer', (c) => c.notNull().references('workflow_run.id').onDelete('cascade'))
    .addColumn('node_id', keyText(engine, 64), (c) => c.notNull())
    .addColumn('status', 'varchar(16)', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('tries', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_try_at', 'varchar(32)')
    .addColumn('started', 'varchar(32)')
    .addColumn('ended', 'varchar(32)')
    .addColumn('error', 'text')
    .addColumn('approval_id', 'integer')
    .addColumn('child_run_id', 'integer')
    .addPrimaryKeyConstraint('workflow_run_node_pk', ['run_id', 'node_id'])
    .execute();

  await db.schema.alterTable('task').addColumn('workflow_run_id', 'integer').execute();
  await db.schema.alterTable('task').addColumn('workflow_node', 'varchar(64)').execute();
  await db.schema.alterTable('task').addColumn('workflow_attempt', 'integer').execute();
  await db.schema
    .createIndex('task_workflow_try_uq')
    .on('task')
    .columns(['workflow_run_id', 'workflow_node', 'workflow_attempt'])
    .unique()
    .execute();
}
