import { ACTIVE_STATUSES } from '@gantry/contracts';
import { sql, type Kysely, type Selectable } from 'kysely';
import type { Database, RunnerTable } from '../../db/types.js';
import { insertReturningAll } from '../../db/portable.js';
import { waitingInTurn } from '../tasks/tasks.repository.js';
import { openForRunner, RunnerLogRepository } from './runner-log.repository.js';

export type RunnerRow = Selectable<RunnerTable>;
export type RunnerValues = Pick<RunnerRow, 'name' | 'tag' | 'webhook' | 'max_parallel_tasks' | 'active'>;

/** Runners, and the queries on tasks that only make sense for runners (claims, heartbeats). */
export class RunnersRepository {
  /** Runners' log lines (idempotent appends). */
  readonly log: RunnerLogRepository;

  constructor(private readonly db: Kysely<Database>) {
    this.log = new RunnerLogRepository(db);
  }

  /** `projectId` undefined: every runner (the admin's view); null: global ones; a number: that project's. */
  list(projectId?: number | null): Promise<RunnerRow[]> {
    let q = this.db.selectFrom('runner').selectAll();
    if (projectId === null) q = q.where('project_id', 'is', null);
    else if (projectId !== undefined) q = q.where('project_id', '=', projectId);
    return q.orderBy('id').execute();
  }

  find(id: number): Promise<RunnerRow | undefined> {
    return this.db.selectFrom('runner').selectAll().where('id', '=', id).executeTakeFirst();
  }

  findByTokenHash(hash: string): Promise<RunnerRow | undefined> {
    return this.db.selectFrom('runner').selectAll().where('token_hash', '=', hash).executeTakeFirst();
  }

  insert(values: Omit<RunnerRow, 'id'>): Promise<RunnerRow> {
    return insertReturningAll(this.db, 'runner', values);
  }

  async update(id: number, patch: Partial<Omit<RunnerRow, 'id'>>): Promise<void> {
    await this.db.updateTable('runner').set(patch).where('id', '=', id).execute();
  }

  async delete(id: number): Promise<void> {
    await this.db.deleteFrom('runner').where('id', '=', id).execute();
  }

  /** Clears the cache request only if it is still set, answering whether this call did it. */
  async takeCleaning(id: number): Promise<boolean> {
    const r = await this.db.updateTable('runner').set({ cleaning_requested: 0 }).where('id', '=', id).where('cleaning_requested', '=', 1).executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  /** Waiting tasks a runner may take, in turn across projects: templates with its tag (empty matches empty), its project or any for a global runner. */
  claimable(runner: Pick<RunnerRow, 'project_id' | 'tag'>, limit: number) {
    return waitingInTurn(this.db, limit, { runnerTag: runner.tag, projectId: runner.project_id }).execute();
  }

  /** Active runners with a webhook that could take a waiting task of this template. */
  wakeable(task: { project_id: number; template_id: number }): Promise<Array<Pick<RunnerRow, 'id' | 'webhook'>>> {
    const tag = this.db.selectFrom('template').select(sql<string>`coalesce(template.runner_tag, '')`.as('tag')).where('template.id', '=', task.template_id);
    return this.db
      .selectFrom('runner')
      .select(['runner.id', 'runner.webhook'])
      .where('runner.active', '=', 1)
      .where('runner.webhook', '!=', '')
      .where((eb) => eb.or([eb('runner.project_id', 'is', null), eb('runner.project_id', '=', task.project_id)]))
      .where('runner.tag', '=', tag)
      .orderBy('runner.id')
      .execute();
  }

  async countRunning(runnerId: number): Promise<number> {
    const r = await this.db
      .selectFrom('task')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('runner_id', '=', runnerId)
      .where('status', 'in', ACTIVE_STATUSES)
      .executeTakeFirst();
    return Number(r?.n ?? 0);
  }

  /** The runner's tasks among `ids`, with what the console asked of them. */
  tasksOf(runnerId: number, ids: number[]) {
    if (ids.length === 0) return Promise.resolve([]);
    return this.db.selectFrom('task').select(['id', 'status', 'stop_force']).where('runner_id', '=', runnerId).where('id', 'in', ids).execute();
  }

  /**
   * Every task the database says the runner holds: claimed by it and not final, or rejected with
   * its final report still to come. What the runner does not report among these, it lost.
   */
  held(runnerId: number) {
    return this.db
      .selectFrom('task')
      .select(['id', 'project_id', 'status', 'start'])
      .where((eb) => openForRunner(eb, runnerId))
      .orderBy('id')
      .execute();
  }

  /** Active tasks on runners that are gone or silent since before `cutoff`. */
  silentTasks(cutoff: string) {
    return this.db
      .selectFrom('task')
      .leftJoin('runner', 'runner.id', 'task.runner_id')
      .select(['task.id', 'task.project_id', 'task.template_id', 'task.status', 'task.runner_id'])
      .where('task.runner_id', 'is not', null)
      .where('task.status', 'in', ACTIVE_STATUSES)
      .where((eb) => eb.or([eb('runner.id', 'is', null), eb('runner.touched', 'is', null), eb('runner.touched', '<', cutoff)]))
      .orderBy('task.id')
      .execute();
  }

  /**
   * Takes the runner's final report for a task the console rejected (it is final before the run
   * has wound down): true for the one call that marks it reported, false for any later one.
   */
  async closeRejected(taskId: number): Promise<boolean> {
    const r = await this.db
      .updateTable('task')
      .set({ runner_reported: 1 })
      .where('id', '=', taskId)
      .where('status', '=', 'rejected')
      .where('runner_reported', '=', 0)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }
}
