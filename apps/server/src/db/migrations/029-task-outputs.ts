import type { Kysely } from 'kysely';

/**
 * A task's outputs passed on: `output`, the JSON object the task left in the file named by
 * GANTRY_OUTPUT (at most 1 MiB, checked before it is stored), and `inputs`, the JSON object
 * `{nodeId: output}` of earlier workflow nodes that the task was given as data. Both null when
 * there is none. One column per statement: SQLite adds one at a time.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('task').addColumn('output', 'text').execute();
  await db.schema.alterTable('task').addColumn('inputs', 'text').execute();
}
