import { sql, type Kysely, type Selectable } from 'kysely';
import type { Database, ScheduleTable } from '../../db/types.js';
import { insertReturningAll } from '../../db/portable.js';

export type ScheduleRow = Selectable<ScheduleTable>;
/** `tpl_name`: the template's name, or the workflow's for a workflow's schedule. */
export type ScheduleWithTemplate = ScheduleRow & { tpl_name: string };
type Values = Pick<
  ScheduleRow,
  'name' | 'template_id' | 'workflow_id' | 'cron_format' | 'repository_id' | 'active' | 'task_params' | 'type'
>;

export class SchedulesRepository {
  constructor(private readonly db: Kysely<Database>) {}

  private base() {
    return this.db
      .selectFrom('schedule')
      .leftJoin('template', 'template.id', 'schedule.template_id')
      .leftJoin('workflow', 'workflow.id', 'schedule.workflow_id')
      .selectAll('schedule')
      .select(sql<string>`coalesce(${sql.ref('template.name')}, ${sql.ref('workflow.name')}, '')`.as('tpl_name'));
  }

  list(projectId: number, templateId?: number): Promise<ScheduleWithTemplate[]> {
    let q = this.base().where('schedule.project_id', '=', projectId);
    if (templateId !== undefined) q = q.where('schedule.template_id', '=', templateId);
    return q.orderBy('schedule.name').orderBy('schedule.id').execute();
  }

  find(projectId: number, id: number): Promise<ScheduleWithTemplate | undefined> {
    return this.base().where('schedule.project_id', '=', projectId).where('schedule.id', '=', id).executeTakeFirst();
  }

  allActive(): Promise<ScheduleRow[]> {
    return this.db.selectFrom('schedule').selectAll().where('active', '=', 1).execute();
  }

  insert(projectId: number, v: Values, now: string): Promise<ScheduleRow> {
    return insertReturningAll(this.db, 'schedule', {
      ...v,
      project_id: projectId,
      active_since: now,
      created: now,
      last_fired: null,
      last_commit_hash: null,
    });
  }

  async update(projectId: number, id: number, patch: Partial<ScheduleRow>): Promise<void> {
    await this.db.updateTable('schedule').set(patch).where('project_id', '=', projectId).where('id', '=', id).execute();
  }

  async delete(projectId: number, id: number): Promise<void> {
    await this.db.deleteFrom('schedule').where('project_id', '=', projectId).where('id', '=', id).execute();
  }

  /** Claims one due time: true for exactly one caller across every server sharing the database. */
  async claim(id: number, due: string): Promise<boolean> {
    const r = await this.db
      .updateTable('schedule')
      .set({ last_fired: due })
      .where('id', '=', id)
      .where('active', '=', 1)
      .where((eb) => eb.or([eb('last_fired', 'is', null), eb('last_fired', '<', due)]))
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  /** Moves the remembered head commit; false when another node already recorded this one. */
  async setCommit(id: number, from: string | null, to: string): Promise<boolean> {
    let q = this.db.updateTable('schedule').set({ last_commit_hash: to }).where('id', '=', id);
    q = from === null ? q.where('last_commit_hash', 'is', null) : q.where('last_commit_hash', '=', from);
    return Number((await q.executeTakeFirst()).numUpdatedRows) === 1;
  }
}
