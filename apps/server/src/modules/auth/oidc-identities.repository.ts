import type { Kysely } from 'kysely';
import { insertUnlessDuplicate } from '../../db/portable.js';
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
  bind(id: ExternalIdentity, userId: number, created: string): Promise<boolean> {
    return insertUnlessDuplicate(this.db, 'external_identity', { provider: id.provider, issuer: id.issuer, subject: id.subject, user_id: userId, created });
  }
}
