import type { Kysely } from 'kysely';
import type { Engine } from '../db.js';
import { idColumn, idType, keyText } from './helpers.js';

/** Views, templates with vaults, tasks and their log lines. */
export async function up(db: Kysely<unknown>, engine: Engine): Promise<void> {
  const id = idType(engine);
  const pk = idColumn(engine);
  const project = (c: Parameters<ReturnType<typeof idColumn>>[0]) => c.notNull().references('project.id').onDelete('cascade');

  await db.schema
    .createTable('view')
    .addColumn('id', id, pk)
    .addColumn('project_id', 'integer', project)
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('position', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();

  await db.schema
    .createTable('template')
    .addColumn('id', id, pk)
    .addColumn('project_id', 'integer', project)
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('type', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('app', 'text', (c) => c.notNull())
    .addColumn('playbook', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('inventory_id', 'integer', (c) => c.references('inventory.id'))
    .addColumn('repository_id', 'integer', (c) => c.notNull().references('repository.id'))
    .addColumn('environment_id', 'integer', (c) => c.notNull().references('environment.id'))
    .addColumn('view_id', 'integer', (c) => c.references('view.id').onDelete('set null'))
    .addColumn('git_branch', 'text')
    .addColumn('runner_tag', 'text')
    .addColumn('start_version', 'text')
    .addColumn('build_template_id', 'integer', (c) => c.references('template.id'))
    .addColumn('autorun', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('arguments', 'text')
    .addColumn('allow_override_args_in_task', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('allow_override_branch_in_task', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('suppress_success_alerts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('survey_vars', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('task_params', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('created', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('template_project_idx').on('template').columns(['project_id', 'id']).execute();

  await db.schema
    .createTable('template_vault')
    .addColumn('id', id, pk)
    .addColumn('project_id', 'integer', project)
    .addColumn('template_id', 'integer', (c) => c.notNull().references('template.id').onDelete('cascade'))
    .addColumn('name', 'text')
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('vault_key_id', 'integer', (c) => c.references('access_key.id'))
    .addColumn('script', 'text')
    .execute();
  await db.schema.createIndex('template_vault_template_idx').on('template_vault').column('template_id').execute();

  await db.schema
    .createTable('task')
    .addColumn('id', id, pk)
    .addColumn('project_id', 'integer', project)
    .addColumn('template_id', 'integer', (c) => c.notNull().references('template.id').onDelete('cascade'))
    .addColumn('status', keyText(engine, 64), (c) => c.notNull())
    .addColumn('message', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('commit_hash', 'text')
    .addColumn('commit_message', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('version', 'text')
    .addColumn('build_task_id', 'integer')
    .addColumn('user_id', 'integer', (c) => c.references('user.id').onDelete('set null'))
    .addColumn('integration_id', 'integer')
    .addColumn('schedule_id', 'integer')
    .addColumn('environment', 'text', (c) => c.notNull().defaultTo('{}'))
    // Sealed JSON of secret survey answers (SecretBox).
    .addColumn('secret', 'text')
    .addColumn('params', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('git_branch', 'text')
    .addColumn('inventory_id', 'integer')
    .addColumn('arguments', 'text')
    .addColumn('created', 'text', (c) => c.notNull())
    .addColumn('start', 'text')
    .addColumn('end', 'text')
    .addColumn('runner_id', 'integer')
    // Which server process runs it, so a restart can tell its own orphans.
    .addColumn('node_id', 'text')
    .execute();
  await db.schema.createIndex('task_project_idx').on('task').columns(['project_id', 'id']).execute();
  await db.schema.createIndex('task_template_idx').on('task').columns(['template_id', 'id']).execute();
  await db.schema.createIndex('task_status_idx').on('task').columns(['status', 'id']).execute();

  await db.schema
    .createTable('task_output')
    .addColumn('id', id, pk)
    .addColumn('task_id', 'integer', (c) => c.notNull().references('task.id').onDelete('cascade'))
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('time', 'text', (c) => c.notNull())
    .addColumn('output', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('task_output_task_idx').on('task_output').columns(['task_id', 'seq']).execute();
}
