import type { Kysely } from 'kysely';
import type { Engine } from '../db.js';
import { idColumn, idType, keyText } from './helpers.js';

/** Users, sessions, API tokens, projects and their members, sign-in throttling. */
export async function up(db: Kysely<unknown>, engine: Engine): Promise<void> {
  const id = idType(engine);
  const pk = idColumn(engine);

  await db.schema
    .createTable('user')
    .addColumn('id', id, pk)
    .addColumn('username', keyText(engine), (c) => c.notNull().unique())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('email', keyText(engine), (c) => c.notNull().unique())
    .addColumn('password', 'text')
    .addColumn('admin', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('external', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('alert', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('session')
    // sha256 hex.
    .addColumn('id', keyText(engine, 64), (c) => c.primaryKey())
    .addColumn('user_id', 'integer', (c) => c.notNull().references('user.id').onDelete('cascade'))
    .addColumn('created', 'text', (c) => c.notNull())
    .addColumn('last_active', 'text', (c) => c.notNull())
    .addColumn('ip', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('user_agent', 'text', (c) => c.notNull().defaultTo(''))
    .execute();
  await db.schema.createIndex('session_user_idx').on('session').column('user_id').execute();

  await db.schema
    .createTable('api_token')
    .addColumn('id', id, pk)
    .addColumn('token_id', keyText(engine), (c) => c.notNull().unique())
    .addColumn('token_hash', 'text', (c) => c.notNull())
    .addColumn('user_id', 'integer', (c) => c.notNull().references('user.id').onDelete('cascade'))
    .addColumn('created', 'text', (c) => c.notNull())
    .addColumn('expired', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.createIndex('api_token_user_idx').on('api_token').column('user_id').execute();

  await db.schema
    .createTable('project')
    .addColumn('id', id, pk)
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('created', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('alert', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('alert_chat', 'text')
    .addColumn('max_parallel_tasks', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();

  await db.schema
    .createTable('project_user')
    .addColumn('id', id, pk)
    .addColumn('project_id', 'integer', (c) => c.notNull().references('project.id').onDelete('cascade'))
    .addColumn('user_id', 'integer', (c) => c.notNull().references('user.id').onDelete('cascade'))
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('created', 'text', (c) => c.notNull())
    .addUniqueConstraint('project_user_unique', ['project_id', 'user_id'])
    .execute();
  await db.schema.createIndex('project_user_user_idx').on('project_user').column('user_id').execute();

  await db.schema
    .createTable('auth_failure')
    // `login:` and a login of up to 255 characters, or `ip:`, `user:`, `second-factor:` and an id.
    .addColumn('key', keyText(engine, 512), (c) => c.primaryKey())
    .addColumn('count', 'integer', (c) => c.notNull())
    .addColumn('first_at', 'text', (c) => c.notNull())
    .addColumn('last_at', 'text', (c) => c.notNull())
    .execute();
}
