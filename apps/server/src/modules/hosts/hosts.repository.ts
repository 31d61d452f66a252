import type { Kysely } from 'kysely';
import type { Database } from '../../db/types.js';
import type { RecapCounts } from './recap.js';

/** Lines of a task's log read for its recap: PLAY RECAP is at the end of an Ansible run's log. */
const TAIL_LINES = 2000;
/** Rows read for the hosts view's last tasks (a project's newest ones first). */
const RESULT_ROWS = 5000;
/** Host names bound per query (well under every engine's limit on parameters). */
const HOSTS_PER_QUERY = 500;

export interface HostResultRow extends RecapCounts {
  task_id: number;
  template_id: number;
  template_name: string | null;
  status: string;
  created: string;
}

export class HostsRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /** The end of a task's log, oldest line first. */
  async logTail(taskId: number): Promise<string[]> {
    const rows = await this.db
      .selectFrom('task_output')
      .select('output')
      .where('task_id', '=', taskId)
      .orderBy('seq', 'desc')
      .limit(TAIL_LINES)
      .execute();
    return rows.map((r) => r.output).reverse();
  }

  /** Replaces a task's host rows (a task's results are recorded once; a repeat changes nothing). */
  async record(taskId: number, projectId: number, hosts: RecapCounts[]): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('task_host').where('task_id', '=', taskId).execute();
      if (hosts.length)
        await trx
          .insertInto('task_host')
          .values(hosts.map((h) => ({ ...h, task_id: taskId, project_id: projectId })))
          .execute();
    });
  }

  /** Of these templates, the one whose task is the project's newest; null when none has run. */
  async lastUsedTemplate(projectId: number, templateIds: number[]): Promise<number | null> {
    if (!templateIds.length) return null;
    const row = await this.db
      .selectFrom('task')
      .select('template_id')
      .where('project_id', '=', projectId)
      .where('template_id', 'in', templateIds)
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row?.template_id ?? null;
  }

  /** The project's newest host results of these hosts, newest task first (hosts asked for in chunks). */
  async results(projectId: number, hosts: string[]): Promise<HostResultRow[]> {
    const out: HostResultRow[] = [];
    for (let i = 0; i < hosts.length; i += HOSTS_PER_QUERY)
      out.push(...(await this.resultsOf(projectId, hosts.slice(i, i + HOSTS_PER_QUERY))));
    return out.sort((a, b) => b.task_id - a.task_id);
  }

  private resultsOf(projectId: number, hosts: string[]): Promise<HostResultRow[]> {
    return this.db
      .selectFrom('task_host')
      .innerJoin('task', 'task.id', 'task_host.task_id')
      .leftJoin('template', 'template.id', 'task.template_id')
      .select([
        'task_host.task_id',
        'task_host.host',
        'task_host.ok',
        'task_host.changed',
        'task_host.unreachable',
        'task_host.failed',
        'task_host.skipped',
        'task_host.rescued',
        'task_host.ignored',
        'task.template_id',
        'task.status',
        'task.created',
        'template.name as template_name',
      ])
      .where('task_host.project_id', '=', projectId)
      .where('task_host.host', 'in', hosts)
      .orderBy('task_host.task_id', 'desc')
      .limit(RESULT_ROWS)
      .execute();
  }
}
