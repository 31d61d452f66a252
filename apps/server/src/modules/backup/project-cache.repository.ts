import { FINISHED_STATUSES } from '@gantry/contracts';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/types.js';

export class ProjectCacheRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /** Every project's id (kept checkouts of others belong to deleted projects). */
  async projectIds(): Promise<Set<number>> {
    return new Set((await this.db.selectFrom('project').select('id').execute()).map((r) => r.id));
  }

  /** Which of `taskIds` are this project's tasks and finished (nothing will use their folder again). */
  async finishedTaskIds(projectId: number, taskIds: number[]): Promise<number[]> {
    const out: number[] = [];
    // Chunks keep each statement under the engines' parameter limits.
    for (let i = 0; i < taskIds.length; i += 500) {
      const rows = await this.db
        .selectFrom('task')
        .select('id')
        .where('project_id', '=', projectId)
        .where('id', 'in', taskIds.slice(i, i + 500))
        .where('status', 'in', FINISHED_STATUSES)
        .execute();
      out.push(...rows.map((r) => r.id));
    }
    return out;
  }
}
