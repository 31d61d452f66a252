import type { Kysely } from 'kysely';
import type { Engine } from '../db.js';
import { idColumn, idType, keyText } from './helpers.js';

/** Incoming-webhook integrations with their aliases, matchers and extracted values; task env vars. */
export async function up(db: Kysely<unknown>, engine: Engine): Promise<void> {
  const id = idType(engine);
  const pk = idColumn(engine);
  const project = (c: Parameters<ReturnType<typeof idColumn>>[0]) =>
    c.notNull().references('project.id').onDelete('cascade');
  const integration = (c: Parameters<ReturnType<typeof idColumn>>[0]) =>
    c.notNull().references('integration.id').onDelete('cascade');

  await db.schema
    .createTable('integration')
    .addColumn('id', id, pk)
    .addColumn('project_id', 'integer', project)
    .addColumn('name', 'text', (c) => c.notNull())
    // No cascade: a template used by an integration cannot be deleted (the service says why first).
    .addColumn('template_id', 'integer', (c) => c.notNull().references('template.id'))
    .addColumn('auth_method', 'text', (c) => c.notNull().defaultTo('none'))
    .addColumn('auth_header', 'text')
    .addColumn('auth_secret_id', 'integer', (c) => c.references('access_key.id'))
    .addColumn('searchable', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('task_params', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('created', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('integration_project_idx').on('integration').columns(['project_id', 'id']).execute();

  await db.schema
    .createTable('integration_alias')
    .addColumn('id', id, pk)
    .addColumn('project_id', 'integer', project)
    // Null: a project-level alias, reaching every searchable integration of the project.
    .addColumn('integration_id', 'integer', (c) => c.references('integration.id').onDelete('cascade'))
    .addColumn('alias', keyText(engine), (c) => c.notNull().unique())
    .addColumn('created', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('integration_alias_project_idx')
    .on('integration_alias')
    .columns(['project_id', 'integration_id'])
    .execute();

  await db.schema
    .createTable('integration_matcher')
    .addColumn('id', id, pk)
    .addColumn('project_id', 'integer', project)
    .addColumn('integration_id', 'integer', integration)
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('match_type', 'text', (c) => c.notNull())
    .addColumn('body_data_type', 'text')
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('method', 'text', (c) => c.notNull())
    .addColumn('value', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('integration_matcher_integration_idx')
    .on('integration_matcher')
    .columns(['integration_id', 'id'])
    .execute();

  await db.schema
    .createTable('integration_extract_value')
    .addColumn('id', id, pk)
    .addColumn('project_id', 'integer', project)
    .addColumn('integration_id', 'integer', integration)
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('value_source', 'text', (c) => c.notNull())
    .addColumn('body_data_type', 'text')
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('variable_type', 'text', (c) => c.notNull())
    .addColumn('variable', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('integration_extract_value_integration_idx')
    .on('integration_extract_value')
    .columns(['integration_id', 'id'])
    .execute();

  // Environment variables a task adds to its variable group's (values extracted from a webhook).
  await db.schema.alterTable('task').addColumn('env', 'text').execute();
}
