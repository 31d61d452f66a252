import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/types.js';

/** How many tasks are in one status, for one app. */
export interface TaskCount {
  status: string;
  app: string;
  count: number;
}

/** The SQL behind /metrics and /api/ready: cheap reads, the same on every engine. */
export class OpsRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /**
   * Tasks per status and app in one query. The task table is grouped first (by status and
   * template), so the join to template touches one row per group, not one per task.
   */
  async taskCounts(): Promise<TaskCount[]> {
    const grouped = this.db
      .selectFrom('task')
      .select(['status', 'template_id', (eb) => eb.fn.countAll().as('n')])
      .groupBy(['status', 'template_id'])
      .as('t');
    const rows = await this.db
      .selectFrom(grouped)
      .leftJoin('template', 'template.id', 't.template_id')
      .select(['t.status', 'template.app', (eb) => eb.fn.sum('t.n').as('n')])
      .groupBy(['t.status', 'template.app'])
      .execute();
    // PostgreSQL sums counts as numeric, which its driver hands over as text.
    return rows.map((r) => ({ status: r.status, app: r.app ?? 'unknown', count: Number(r.n) }));
  }

  /** Throws unless the database answers. */
  async ping(): Promise<void> {
    await sql`select 1`.execute(this.db);
  }

  /** Names of the migrations applied to this database (Kysely's own bookkeeping table). */
  async appliedMigrations(): Promise<string[]> {
    const { rows } = await sql<{ name: string }>`select name from kysely_migration`.execute(this.db);
    return rows.map((r) => r.name);
  }
}
