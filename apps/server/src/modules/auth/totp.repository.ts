import type { Kysely, Selectable } from 'kysely';
import { insertReturningId } from '../../db/portable.js';
import type { Database, UserTotpTable } from '../../db/types.js';

export type UserTotpRow = Selectable<UserTotpTable>;

/** The only SQL about users' TOTP methods. */
export class TotpRepository {
  constructor(private readonly db: Kysely<Database>) {}

  findByUser(userId: number): Promise<UserTotpRow | undefined> {
    return this.db.selectFrom('user_totp').selectAll().where('user_id', '=', userId).executeTakeFirst();
  }

  insert(row: Omit<UserTotpRow, 'id' | 'last_step'>): Promise<number> {
    return insertReturningId(this.db, 'user_totp', { ...row, last_step: 0 });
  }

  /** Marks the user's method with this id confirmed; answers whether it was waiting for that. */
  async confirm(userId: number, id: number): Promise<boolean> {
    const r = await this.db
      .updateTable('user_totp')
      .set({ confirmed: 1 })
      .where('user_id', '=', userId)
      .where('id', '=', id)
      .where('confirmed', '=', 0)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }

  /** Deletes the user's method if it still waits for its first code (it is being set up anew). */
  async deleteUnconfirmed(userId: number): Promise<void> {
    await this.db.deleteFrom('user_totp').where('user_id', '=', userId).where('confirmed', '=', 0).execute();
  }

  /** Deletes the user's method with this id; answers whether there was one. */
  async delete(userId: number, id: number): Promise<boolean> {
    const r = await this.db
      .deleteFrom('user_totp')
      .where('user_id', '=', userId)
      .where('id', '=', id)
      .executeTakeFirst();
    return Number(r.numDeletedRows) > 0;
  }

  /**
   * Records `step` as used, only when it is later than the last used one; answers whether it was.
   * One conditional update, so two requests racing with the same code cannot both pass.
   */
  async useStep(id: number, step: number): Promise<boolean> {
    const r = await this.db
      .updateTable('user_totp')
      .set({ last_step: step })
      .where('id', '=', id)
      .where('last_step', '<', step)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }

  /** Deletes the method only if its recovery code hash still matches; answers whether it did. */
  async deleteByRecovery(userId: number, recoveryHash: string): Promise<boolean> {
    const r = await this.db
      .deleteFrom('user_totp')
      .where('user_id', '=', userId)
      .where('recovery_hash', '=', recoveryHash)
      .executeTakeFirst();
    return Number(r.numDeletedRows) > 0;
  }
}
