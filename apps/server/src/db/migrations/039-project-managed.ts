import type { Kysely } from 'kysely';

/**
 * A project "managed by code" (`gantry apply` sets it): the console shows its objects read-only,
 * since a hand edit would be undone by the next apply. Every project before this migration is
 * edited by hand (0).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('project')
    .addColumn('managed_by_code', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}
