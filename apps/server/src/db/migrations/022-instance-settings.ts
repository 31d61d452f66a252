import type { Kysely } from 'kysely';

/**
 * Instance-wide settings an admin changes in the console (first: who must use two-factor
 * sign-in), one row per key; the value is JSON text. The key is a bounded varchar so every
 * engine can index it.
 *
 * `session.mfa_by_provider`: the session was opened by a sign-in whose provider does its own
 * multi-factor check (an OpenID Connect provider or LDAP marked so by the admin), so the
 * admin's two-factor requirement does not ask this session to set up Gantry's own.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('instance_setting')
    .addColumn('key', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('updated', 'varchar(32)', (c) => c.notNull())
    .execute();
  await db.schema
    .alterTable('session')
    .addColumn('mfa_by_provider', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}
