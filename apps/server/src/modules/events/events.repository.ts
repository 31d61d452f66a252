import type { Kysely } from 'kysely';
import type { Database } from '../../db/types.js';

export class EventsRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async insert(row: Omit<Database['event'], 'id'>): Promise<void> {
    await this.db.insertInto('event').values(row).execute();
  }

  /** Newest first across the projects the user belongs to (admins: all). */
  lastForUser(userId: number, all: boolean, limit: number) {
    let q = this.db
      .selectFrom('event')
      .leftJoin('user', 'user.id', 'event.user_id')
      .selectAll('event')
      .select('user.username');
    if (!all)
      q = q.where('event.project_id', 'in', (eb) =>
        eb.selectFrom('project_user').select('project_id').where('user_id', '=', userId),
      );
    return q.orderBy('event.id', 'desc').limit(limit).execute();
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
