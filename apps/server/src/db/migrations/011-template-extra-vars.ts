import type { Kysely } from 'kysely';

/**
 * `allow_extra_vars_in_task`: whether a task of the template may give extra variables beyond the
 * survey's. Off for every template, existing ones included: task input is limited to the survey
 * unless a manager chooses otherwise.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('template')
    .addColumn('allow_extra_vars_in_task', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}
