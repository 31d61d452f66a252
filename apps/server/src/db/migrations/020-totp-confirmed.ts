import type { Kysely } from 'kysely';

/**
 * Whether a two-factor method was confirmed with a code from the authenticator app. Sign-in asks
 * for codes of confirmed methods only; one that waits for its first code can be set up anew.
 * Methods from before this migration were on as soon as they were made, so they stay on.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('user_totp')
    .addColumn('confirmed', 'integer', (c) => c.notNull().defaultTo(1))
    .execute();
}
