import type { Kysely } from 'kysely';

/**
 * Which users came from the LDAP directory, and where they are in it. A user with a row here
 * signs in against the directory (never with a local password), is updated from it at each
 * sign-in and is checked there while they have open sessions (gone or disabled: signed out).
 * `login` is the value of the login attribute the directory answered (the user filter's
 * `{login}` when the user is looked up again); `dn` where the entry was last found.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('ldap_user')
    .addColumn('user_id', 'integer', (c) => c.primaryKey().references('user.id').onDelete('cascade'))
    .addColumn('dn', 'text', (c) => c.notNull())
    .addColumn('login', 'text', (c) => c.notNull())
    .addColumn('created', 'text', (c) => c.notNull())
    .addColumn('last_sign_in', 'text', (c) => c.notNull())
    .execute();
}
