import type { Kysely } from 'kysely';
import type { Engine } from '../db.js';
import { idColumn, idType, keyText } from './helpers.js';

/**
 * Approvals: a workflow run's approval node, or a task held by its template's approval policy.
 * - `approval`: unique on (workflow_run_id, node_id, attempt), so two server nodes driving one run
 *   open a node's approval once; unique on task_id, so a task waits for one approval. Deciding is
 *   a conditional UPDATE `pending` → decided: of racing votes and timeout sweeps one wins.
 * - `approval_vote`: one per user and approval (the unique key refuses a second vote, also in a burst).
 * - `approval_link_use`: the signed one-time links already used (their hash is the key: a link is
 *   used once, whichever node sees it).
 * - `template.approval_policy`: JSON ApprovalPolicy, null for none.
 */
export async function up(db: Kysely<unknown>, engine: Engine): Promise<void> {
  await db.schema
    .createTable('approval')
    .addColumn('id', idType(engine), idColumn(engine))
    .addColumn('project_id', 'integer', (c) => c.notNull().references('project.id').onDelete('cascade'))
    .addColumn('status', 'varchar(16)', (c) => c.notNull())
    .addColumn('workflow_run_id', 'integer')
    .addColumn('workflow_id', 'integer')
    .addColumn('node_id', keyText(engine, 64))
    .addColumn('attempt', 'integer')
    .addColumn('task_id', 'integer')
    .addColumn('template_id', 'integer')
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('requester_id', 'integer')
    .addColumn('approvers', 'text', (c) => c.notNull())
    .addColumn('required_approvals', 'integer', (c) => c.notNull())
    .addColumn('allow_self_approval', 'integer', (c) => c.notNull())
    .addColumn('deadline', 'varchar(32)')
    .addColumn('on_timeout', 'varchar(16)', (c) => c.notNull())
    .addColumn('created', 'varchar(32)', (c) => c.notNull())
    .addColumn('decided', 'varchar(32)')
    .addColumn('decided_by', 'varchar(255)')
    .execute();
  await db.schema
    .createIndex('approval_node_uq')
    .on('approval')
    .columns(['workflow_run_id', 'node_id', 'attempt'])
    .unique()
    .execute();
  await db.schema.createIndex('approval_task_uq').on('approval').column('task_id').unique().execute();
  await db.schema.createIndex('approval_project_idx').on('approval').columns(['project_id', 'status']).execute();
  await db.schema.createIndex('approval_deadline_idx').on('approval').columns(['status', 'deadline']).execute();

  await db.schema
    .createTable('approval_vote')
    .addColumn('approval_id', 'integer', (c) => c.notNull().references('approval.id').onDelete('cascade'))
    .addColumn('user_id', 'integer', (c) => c.notNull())
    .addColumn('decision', 'varchar(16)', (c) => c.notNull())
    .addColumn('comment', 'text', (c) => c.notNull())
    .addColumn('created', 'varchar(32)', (c) => c.notNull())
    .addPrimaryKeyConstraint('approval_vote_pk', ['approval_id', 'user_id'])
    .execute();

  await db.schema
    .createTable('approval_link_use')
    .addColumn('token_hash', keyText(engine, 64), (c) => c.primaryKey())
    .addColumn('approval_id', 'integer', (c) => c.notNull().references('approval.id').onDelete('cascade'))
    .addColumn('user_id', 'integer', (c) => c.notNull())
    .addColumn('used', 'varchar(32)', (c) => c.notNull())
    .execute();

  await db.schema.alterTable('template').addColumn('approval_policy', 'text').execute();
}
