import { sql, type Kysely } from 'kysely';
import type { Database } from '../../db/types.js';

/** Per day and status counts of a project's (or template's) tasks; the same SQL on both engines. */
export class StatsRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async countByDay(projectId: number, since: string, filter: { templateId?: number; userId?: number }) {
    const day = sql<string>`substr(created, 1, 10)`;
    let q = this.db
      .selectFrom('task')
      .select([day.as('date'), 'status', (eb) => eb.fn.countAll<number>().as('n')])
      .where('project_id', '=', projectId)
      .where('created', '>=', since)
      .where('status', 'in', ['success', 'error', 'stopped']);
    if (filter.templateId !== undefined) q = q.where('template_id', '=', filter.templateId);
    if (filter.userId !== undefined) q = q.where('user_id', '=', filter.userId);
    return q.groupBy([day, 'status']).orderBy(day).execute();
  }
}
