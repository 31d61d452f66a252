import type { Kysely } from 'kysely';

/**
 * The variable group a task runs with when it is not its template's: a workflow node may name
 * another group of the project. Null: the template's (every task before this migration).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('task').addColumn('environment_id', 'integer').execute();
}
