import type { Kysely } from 'kysely';

/**
 * When a session's sign-in was completed (password, and the code when two-factor sign-in asks for
 * one), not its last activity: a change of one's own password without the current one is taken
 * only from a session signed in minutes ago. Null while the session waits for the code; sessions
 * opened before this migration have none, so they count as signed in long ago.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('session').addColumn('signed_in', 'text').execute();
}
