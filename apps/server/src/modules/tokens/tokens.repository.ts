import type { Kysely, Selectable } from 'kysely';
import type { ApiTokenTable, Database } from '../../db/types.js';
import { insertReturningAll } from '../../db/portable.js';

export type ApiTokenRow = Selectable<ApiTokenTable>;

export class TokensRepository {
  constructor(private readonly db: Kysely<Database>) {}

  listForUser(userId: number): Promise<ApiTokenRow[]> {
    return this.db
      .selectFrom('api_token')
      .selectAll()
      .where('user_id', '=', userId)
      .orderBy('created', 'desc')
      .orderBy('id', 'desc')
      .execute();
  }

  findByTokenId(tokenId: string): Promise<ApiTokenRow | undefined> {
    return this.db.selectFrom('api_token').selectAll().where('token_id', '=', tokenId).executeTakeFirst();
  }

  insert(row: Omit<ApiTokenRow, 'id'>): Promise<ApiTokenRow> {
    return insertReturningAll(this.db, 'api_token', row);
  }

  async expire(id: number): Promise<void> {
    await this.db.updateTable('api_token').set({ expired: 1 }).where('id', '=', id).execute();
  }

  async delete(id: number): Promise<void> {
    await this.db.deleteFrom('api_token').where('id', '=', id).execute();
  }
}
