import type { Kysely } from 'kysely';
import type { Engine } from '../db.js';
import { idColumn, idType } from './helpers.js';

/** Keys, repositories, inventories, variable groups with their secrets, and the activity log. */
export async function up(db: Kysely<unknown>, engine: Engine): Promise<void> {
  const id = idType(engine);
  const pk = idColumn(engine);
  const project = (c: Parameters<ReturnType<typeof idColumn>>[0]) =>
    c.notNull().references('project.id').onDelete('cascade');

  await db.schema
    .createTable('access_key')
    .addColumn('id', id, pk)
    .addColumn('project_id', 'integer', project)
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    // AES-256-GCM sealed JSON of the key material; null when nothing is stored.
    .addColumn('secret', 'text')
    .addColumn('created', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('access_key_project_idx').on('access_key').columns(['project_id', 'id']).execute();

  await db.schema
    .createTable('repository')
    .addColumn('id', id, pk)
    .addColumn('project_id', 'integer', project)
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('git_url', 'text', (c) => c.notNull())
    .addColumn('git_branch', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('ssh_key_id', 'integer', (c) => c.notNull().references('access_key.id'))
    .addColumn('created', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('repository_project_idx').on('repository').columns(['project_id', 'id']).execute();

  await db.schema
    .createTable('inventory')
    .addColumn('id', id, pk)
    .addColumn('project_id', 'integer', project)
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('inventory', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('ssh_key_id', 'integer', (c) => c.references('access_key.id'))
    .addColumn('become_key_id', 'integer', (c) => c.references('access_key.id'))
    .addColumn('repository_id', 'integer', (c) => c.references('repository.id'))
    .addColumn('template_id', 'integer')
    .addColumn('created', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('inventory_project_idx').on('inventory').columns(['project_id', 'id']).execute();

  await db.schema
    .createTable('environment')
    .addColumn('id', id, pk)
    .addColumn('project_id', 'integer', project)
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('json', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('env', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('created', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('environment_project_idx').on('environment').columns(['project_id', 'id']).execute();

  await db.schema
    .createTable('environment_secret')
    .addColumn('id', id, pk)
    .addColumn('project_id', 'integer', project)
    .addColumn('environment_id', 'integer', (c) => c.notNull().references('environment.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('secret', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('environment_secret_env_idx').on('environment_secret').column('environment_id').execute();

  await db.schema
    .createTable('event')
    .addColumn('id', id, pk)
    .addColumn('project_id', 'integer', (c) => c.references('project.id').onDelete('cascade'))
    .addColumn('user_id', 'integer', (c) => c.references('user.id').onDelete('set null'))
    .addColumn('object_type', 'text', (c) => c.notNull())
    .addColumn('object_id', 'integer')
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('created', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('event_project_idx').on('event').columns(['project_id', 'id']).execute();
}
