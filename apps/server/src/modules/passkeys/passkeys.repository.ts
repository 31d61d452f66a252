import type { Kysely, Selectable } from 'kysely';
import { insertReturningId } from '../../db/portable.js';
import type { Database, PasskeyChallengeTable, UserPasskeyTable } from '../../db/types.js';

export type PasskeyRow = Omit<Selectable<UserPasskeyTable>, 'counter'> & { counter: number };
export type PasskeyChallengeRow = Selectable<PasskeyChallengeTable>;

/** PostgreSQL answers a bigint as text. */
const withCounter = (row: Selectable<UserPasskeyTable>): PasskeyRow => ({ ...row, counter: Number(row.counter) });

/** The only SQL about passkeys and their challenges. */
export class PasskeysRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async listByUser(userId: number): Promise<PasskeyRow[]> {
    const rows = await this.db
      .selectFrom('user_passkey')
      .selectAll()
      .where('user_id', '=', userId)
      .orderBy('id')
      .execute();
    return rows.map(withCounter);
  }

  async hasAny(userId: number): Promise<boolean> {
    const row = await this.db
      .selectFrom('user_passkey')
      .select('id')
      .where('user_id', '=', userId)
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  }

  async find(userId: number, id: number): Promise<PasskeyRow | undefined> {
    const row = await this.db
      .selectFrom('user_passkey')
      .selectAll()
      .where('user_id', '=', userId)
      .where('id', '=', id)
      .executeTakeFirst();
    return row && withCounter(row);
  }

  async findByCredentialId(credentialId: string): Promise<PasskeyRow | undefined> {
    const row = await this.db
      .selectFrom('user_passkey')
      .selectAll()
      .where('credential_id', '=', credentialId)
      .executeTakeFirst();
    return row && withCounter(row);
  }

  insert(row: Omit<PasskeyRow, 'id' | 'last_used'>): Promise<number> {
    return insertReturningId(this.db, 'user_passkey', { ...row, last_used: null });
  }

  async rename(userId: number, id: number, name: string): Promise<boolean> {
    const r = await this.db
      .updateTable('user_passkey')
      .set({ name })
      .where('user_id', '=', userId)
      .where('id', '=', id)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }

  /**
   * Records a use: the new counter, only if it still is what the check saw, so of two answers
   * racing with the same counter only one counts.
   */
  async markUsed(id: number, seenCounter: number, counter: number, at: string): Promise<boolean> {
    const r = await this.db
      .updateTable('user_passkey')
      .set({ counter, last_used: at })
      .where('id', '=', id)
      .where('counter', '=', seenCounter)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }

  async delete(userId: number, id: number): Promise<boolean> {
    const r = await this.db
      .deleteFrom('user_passkey')
      .where('user_id', '=', userId)
      .where('id', '=', id)
      .executeTakeFirst();
    return Number(r.numDeletedRows) > 0;
  }

  /** Stores a challenge, dropping those already expired. */
  async insertChallenge(row: PasskeyChallengeRow, now: string): Promise<void> {
    await this.db.deleteFrom('passkey_challenge').where('expires', '<', now).execute();
    await this.db.insertInto('passkey_challenge').values(row).execute();
  }

  /**
   * Takes a challenge out (spent whatever the outcome): answers it only to the one caller whose
   * delete removed it, so an answer replayed, or sent twice at once, finds nothing.
   */
  async takeChallenge(id: string): Promise<PasskeyChallengeRow | undefined> {
    const row = await this.db.selectFrom('passkey_challenge').selectAll().where('id', '=', id).executeTakeFirst();
    if (!row) return undefined;
    const r = await this.db.deleteFrom('passkey_challenge').where('id', '=', id).executeTakeFirst();
    return Number(r.numDeletedRows) > 0 ? row : undefined;
  }
}
