import type { Kysely } from 'kysely';

/**
 * API tokens may be given a lifetime at creation: `expires` (ISO) is when the token stops
 * working on its own; null means never, as for every token made before. Revocation and
 * per-address throttling need no new columns: sessions are deleted, tokens marked expired, and
 * `auth_failure` keys already say whether they count an account or an address.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('api_token').addColumn('expires', 'text').execute();
}
