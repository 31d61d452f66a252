import type { Kysely } from 'kysely';
import type { Engine } from '../db.js';
import { idColumn, idType } from './helpers.js';

/** Cron schedules of templates, and "run on new commit" checks. */
export async function up(db: Kysely<unknown>, engine: Engine): Promise<void> {
  await db.schema
    .createTable('schedule')
    .addColumn('id', idType(engine), idColumn(engine))
    .addColumn('project_id', 'integer', (c) => c.notNull().references('project.id').onDelete('cascade'))
    .addColumn('template_id', 'integer', (c) => c.notNull().references('template.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('cron_format', 'text', (c) => c.notNull())
    .addColumn('repository_id', 'integer', (c) => c.references('repository.id'))
    .addColumn('active', 'integer', (c) => c.notNull().defaultTo(1))
    // Firings are claimed by moving this forward, so each due time fires once across nodes.
    .addColumn('last_fired', 'text')
    .addColumn('active_since', 'text', (c) => c.notNull())
    .addColumn('last_commit_hash', 'text')
    .addColumn('created', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('schedule_project_idx').on('schedule').columns(['project_id', 'id']).execute();
}
