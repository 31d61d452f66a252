import type { Kysely } from 'kysely';

/**
 * A schedule's answers to its template's parameters (Semaphore's schedule `task_params`): JSON
 * object text `{"environment": "<answers as JSON object text>"}`, typed as the template says. Null:
 * none (every schedule before this migration, and Semaphore's clients that send none).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('schedule').addColumn('task_params', 'text').execute();
}
