import type { Kysely } from 'kysely';
import type { Engine } from '../db.js';
import { idColumn, idType } from './helpers.js';

/**
 * Workflows: a project's graphs of template, approval and nested-workflow nodes. The graph
 * (nodes, edges, joins) is one JSON document, checked as a whole when it is saved; runs and
 * approvals are rows of their own (a later migration).
 */
export async function up(db: Kysely<unknown>, engine: Engine): Promise<void> {
  await db.schema
    .createTable('workflow')
    .addColumn('id', idType(engine), idColumn(engine))
    .addColumn('project_id', 'integer', (c) => c.notNull().references('project.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('graph', 'text', (c) => c.notNull())
    .addColumn('created', 'varchar(32)', (c) => c.notNull())
    .addColumn('updated', 'varchar(32)', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('workflow_project_idx').on('workflow').column('project_id').execute();
}
