import type { Kysely } from 'kysely';
import type { Engine } from '../db.js';
import { idColumn, idType, keyText } from './helpers.js';

/** Remote runners (global when project_id is null) and a task's force-stop request for its runner. */
export async function up(db: Kysely<unknown>, engine: Engine): Promise<void> {
  await db.schema
    .createTable('runner')
    .addColumn('id', idType(engine), idColumn(engine))
    .addColumn('project_id', 'integer', (c) => c.references('project.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('tag', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('webhook', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('max_parallel_tasks', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('active', 'integer', (c) => c.notNull().defaultTo(1))
    // sha256 of the token: the token itself is shown once, at creation.
    .addColumn('token_hash', keyText(engine), (c) => c.notNull().unique())
    // The runner's public key (PEM); its private key is never stored.
    .addColumn('public_key', 'text', (c) => c.notNull())
    .addColumn('touched', 'text')
    .addColumn('cleaning_requested', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('runner_project_idx').on('runner').columns(['project_id', 'id']).execute();
  await db.schema.createIndex('task_runner_idx').on('task').columns(['runner_id', 'status']).execute();

  // Set by a force stop: the runner running the task is told to kill rather than terminate.
  await db.schema
    .alterTable('task')
    .addColumn('stop_force', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}
