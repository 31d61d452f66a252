import type { Kysely } from 'kysely';
import type { Database } from '../../db/types.js';

export class SessionsRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async insert(row: Database['session']): Promise<void> {
    await this.db.insertInto('session').values(row).execute();
  }

  find(idHash: string) {
    return this.db.selectFrom('session').selectAll().where('id', '=', idHash).executeTakeFirst();
  }

  async touch(idHash: string, at: string): Promise<void> {
    await this.db.updateTable('session').set({ last_active: at }).where('id', '=', idHash).execute();
  }

  /** The second sign-in step is done: the session is signed in from `at`. */
  async markVerified(idHash: string, at: string): Promise<void> {
    await this.db.updateTable('session').set({ verified: 1, signed_in: at }).where('id', '=', idHash).execute();
  }

  async delete(idHash: string): Promise<void> {
    await this.db.deleteFrom('session').where('id', '=', idHash).execute();
  }

  async deleteForUser(userId: number): Promise<void> {
    await this.db.deleteFrom('session').where('user_id', '=', userId).execute();
  }

  async deleteIdleBefore(cutoff: string): Promise<void> {
    await this.db.deleteFrom('session').where('last_active', '<', cutoff).execute();
  }
}
