import type { Kysely } from 'kysely';
import type { Database } from '../../db/types.js';

/** Who a person is at a provider: the provider's id, the id_token's `iss` and `sub`. */
export interface ExternalIdentity {
  provider: string;
  issuer: string;
  subject: string;
}

/** The only SQL about external identities (bindings of external users to a provider's subject). */
export class OidcIdentitiesRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /** The user bound to this identity, if any. */
  async userIdOf(id: ExternalIdentity): Promise<number | undefined> {
    const row = await this.db
      .selectFrom('external_identity')
      .select('user_id')
      .where('provider', '=', id.provider)
      .where('issuer', '=', id.issuer)
      .where('subject', '=', id.subject)
      .executeTakeFirst();
    return row?.user_id;
  }

  /** Whether the user is already bound to some identity at this provider. */
  async isBound(provider: string, userId: number): Promise<boolean> {
    const row = await this.db
      .selectFrom('external_identity')
      .select('id')
      .where('provider', '=', provider)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    return row !== undefined;
  }

  /**
   * Binds the user; false when the identity or the user (at this provider) is bound already,
   * which the unique constraints decide when two sign-ins race.
   */
  async bind(id: ExternalIdentity, userId: number, created: string): Promise<boolean> {
    const result = await this.db
      .insertInto('external_identity')
      .values({ provider: id.provider, issuer: id.issuer, subject: id.subject, user_id: userId, created })
      .onConflict((oc) => oc.doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
  }
}
