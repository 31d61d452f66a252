import type { Kysely } from 'kysely';

/**
 * What an integration's delivery gave a workflow run: `{vars, env}` extracted from the request,
 * passed to each template node's task as an integration passes them to its own task. Null for
 * runs started otherwise.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('workflow_run').addColumn('start_values', 'text').execute();
}
