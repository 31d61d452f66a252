import type { Kysely } from 'kysely';
import type { Database } from '../../db/types.js';

export class EventsRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async insert(row: Omit<Database['event'], 'id'>): Promise<void> {
    await this.db.insertInto('event').values(row).execute();
  }

  /** Newest first, with the author's username. */
  lastForProject(projectId: number, limit: number) {
    return this.db
      .selectFrom('event')
      .leftJoin('user', 'user.id', 'event.user_id')
      .selectAll('event')
      .select('user.username')
      .where('event.project_id', '=', projectId)
      .orderBy('event.id', 'desc')
      .limit(limit)
      .execute();
  }
}
