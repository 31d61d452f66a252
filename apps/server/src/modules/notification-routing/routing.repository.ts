import { sql, type Kysely } from 'kysely';
import type { Database } from '../../db/types.js';

/** What an event says about its task, and what rules filter on. */
export interface RoutedTask {
  id: number;
  project_id: number;
  project_name: string;
  template_id: number;
  template_name: string;
  status: string;
  created: string;
  start: string | null;
  end: string | null;
  version: string | null;
  commit_hash: string | null;
  schedule_id: number | null;
  integration_id: number | null;
  user_id: number | null;
  user_name: string | null;
  /** The task's branch, else its template's, else its repository's. */
  branch: string | null;
  /** The author's role in the project (null: no author, or no longer a member). */
  author_role: string | null;
}

/** The SQL the router and the sweeps read (tasks, runners, counts); they never write. */
export class RoutingRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async task(id: number): Promise<RoutedTask | undefined> {
    const row = await this.db
      .selectFrom('task')
      .innerJoin('project', 'project.id', 'task.project_id')
      .innerJoin('template', 'template.id', 'task.template_id')
      .leftJoin('repository', 'repository.id', 'template.repository_id')
      .leftJoin('user', 'user.id', 'task.user_id')
      .leftJoin('project_user', (j) =>
        j.onRef('project_user.project_id', '=', 'task.project_id').onRef('project_user.user_id', '=', 'task.user_id'),
      )
      .select([
        'task.id',
        'task.project_id',
        'project.name as project_name',
        'task.template_id',
        'template.name as template_name',
        'task.status',
        'task.created',
        'task.start',
        'task.end',
        'task.version',
        'task.commit_hash',
        'task.schedule_id',
        'task.integration_id',
        'task.user_id',
        'user.name as user_name',
        'task.git_branch',
        'template.git_branch as template_branch',
        'repository.git_branch as repository_branch',
        'project_user.role as author_role',
      ])
      .where('task.id', '=', id)
      .executeTakeFirst();
    if (!row) return undefined;
    const { git_branch, template_branch, repository_branch, ...rest } = row;
    return { ...rest, branch: git_branch || template_branch || repository_branch || null };
  }

  /** The status of the template's last finished (success or error) task before this one. */
  async previousFinished(templateId: number, beforeTaskId: number): Promise<string | null> {
    const row = await this.db
      .selectFrom('task')
      .select('status')
      .where('template_id', '=', templateId)
      .where('id', '<', beforeTaskId)
      .where('status', 'in', ['success', 'error'])
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row?.status ?? null;
  }

  /** Tasks that started at `since` or later, of projects with a rule routing `task_started` (or a global one). */
  startedSince(since: string, projectIds: number[] | 'all'): Promise<Array<{ id: number }>> {
    return this.db
      .selectFrom('task')
      .select('id')
      .where('start', '>=', since)
      .$if(projectIds !== 'all', (q) => q.where('project_id', 'in', projectIds as number[]))
      .orderBy('id')
      .limit(500)
      .execute();
  }

  /** Running tasks that started before `before`. */
  runningSince(before: string, projectIds: number[] | 'all'): Promise<Array<{ id: number; start: string | null }>> {
    return this.db
      .selectFrom('task')
      .select(['id', 'start'])
      .where('status', '=', 'running')
      .where('start', 'is not', null)
      .where('start', '<=', before)
      .$if(projectIds !== 'all', (q) => q.where('project_id', 'in', projectIds as number[]))
      .orderBy('id')
      .limit(500)
      .execute();
  }

  /** Active runners silent since before `cutoff` (never-seen ones are not "offline", only new). */
  silentRunners(cutoff: string) {
    return this.db
      .selectFrom('runner')
      .select(['id', 'project_id', 'name', 'touched'])
      .where('active', '=', 1)
      .where('touched', 'is not', null)
      .where('touched', '<', cutoff)
      .orderBy('id')
      .execute();
  }

  async projectName(id: number): Promise<string | null> {
    const row = await this.db.selectFrom('project').select('name').where('id', '=', id).executeTakeFirst();
    return row?.name ?? null;
  }

  /** Tasks created in [since, until) by status, of one project or (null) of all. */
  async statusCounts(projectId: number | null, since: string, until: string): Promise<Record<string, number>> {
    const rows = await this.db
      .selectFrom('task')
      .select(['status', sql<number>`count(*)`.as('n')])
      .where('created', '>=', since)
      .where('created', '<', until)
      .$if(projectId !== null, (q) => q.where('project_id', '=', projectId!))
      .groupBy('status')
      .execute();
    const out: Record<string, number> = {};
    for (const r of rows) out[r.status] = Number(r.n);
    return out;
  }

  /** Templates with failed tasks in [since, until), most failures first. */
  async failing(projectId: number | null, since: string, until: string, limit: number) {
    const rows = await this.db
      .selectFrom('task')
      .innerJoin('template', 'template.id', 'task.template_id')
      .select([
        'task.template_id',
        'template.name as template_name',
        'task.project_id',
        sql<number>`count(*)`.as('failed'),
      ])
      .where('task.status', '=', 'error')
      .where('task.created', '>=', since)
      .where('task.created', '<', until)
      .$if(projectId !== null, (q) => q.where('task.project_id', '=', projectId!))
      .groupBy(['task.template_id', 'template.name', 'task.project_id'])
      .orderBy(sql`count(*)`, 'desc')
      .orderBy('task.template_id')
      .limit(limit)
      .execute();
    return rows.map((r) => ({ ...r, failed: Number(r.failed) }));
  }
}
