import type { Kysely, Selectable } from 'kysely';
import type { Database, LdapUserTable } from '../../db/types.js';

export type LdapUserRow = Selectable<LdapUserTable>;

/** The only SQL about which users come from the LDAP directory (table ldap_user, migration 023). */
export class LdapUsersRepository {
  constructor(private readonly db: Kysely<Database>) {}

  find(userId: number): Promise<LdapUserRow | undefined> {
    return this.db.selectFrom('ldap_user').selectAll().where('user_id', '=', userId).executeTakeFirst();
  }

  /** The user linked to this directory login (compared without case), if any. */
  findByLogin(login: string): Promise<LdapUserRow | undefined> {
    return this.db
      .selectFrom('ldap_user')
      .selectAll()
      .where((eb) => eb(eb.fn('lower', ['login']), '=', login.toLowerCase()))
      .orderBy('user_id')
      .executeTakeFirst();
  }

  /** Links the user to the entry, or records where it was found now. */
  async upsert(userId: number, dn: string, login: string, at: string): Promise<void> {
    const updated = await this.db
      .updateTable('ldap_user')
      .set({ dn, login, last_sign_in: at })
      .where('user_id', '=', userId)
      .executeTakeFirst();
    if (Number(updated.numUpdatedRows) > 0) return;
    try {
      await this.db
        .insertInto('ldap_user')
        .values({ user_id: userId, dn, login, created: at, last_sign_in: at })
        .execute();
    } catch (err) {
      // A sign-in racing this one linked it meanwhile: the same entry, so its row is as good.
      if (!(await this.find(userId))) throw err;
    }
  }

  /**
   * The directory users who can act now: at least one session or an API token not expired (the
   * ones the periodic check looks up; revoking ends both).
   */
  withSessions(): Promise<LdapUserRow[]> {
    return this.db
      .selectFrom('ldap_user')
      .selectAll('ldap_user')
      .where((eb) =>
        eb.or([
          eb.exists(
            eb.selectFrom('session').select('session.id').whereRef('session.user_id', '=', 'ldap_user.user_id'),
          ),
          eb.exists(
            eb
              .selectFrom('api_token')
              .select('api_token.id')
              .whereRef('api_token.user_id', '=', 'ldap_user.user_id')
              .where('api_token.expired', '=', 0),
          ),
        ]),
      )
      .orderBy('ldap_user.user_id')
      .execute();
  }
}
