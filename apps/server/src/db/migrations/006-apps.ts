import type { Kysely } from 'kysely';
import type { Engine } from '../db.js';
import { keyText } from './helpers.js';

/**
 * Configured apps. Built-in apps have no row until an admin changes one (the row then overrides
 * the defaults); custom apps always have one.
 */
export async function up(db: Kysely<unknown>, engine: Engine): Promise<void> {
  await db.schema
    .createTable('app')
    .addColumn('id', keyText(engine), (c) => c.primaryKey())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('icon', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('path', 'text', (c) => c.notNull())
    .addColumn('priority', 'integer', (c) => c.notNull().defaultTo(0))
    // JSON list of extra argv strings.
    .addColumn('args', 'text', (c) => c.notNull().defaultTo('[]'))
    // Null: automatic (active when the executable is found); else 0 or 1 as set by an admin.
    .addColumn('active', 'integer')
    .addColumn('created', 'text', (c) => c.notNull())
    .execute();
}
