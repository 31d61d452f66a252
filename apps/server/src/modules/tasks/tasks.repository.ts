import { ACTIVE_STATUSES } from '@gantry/contracts';
import { sql, type Kysely, type Selectable } from 'kysely';
import type { Engine } from '../../db/db.js';
import type { Database, TaskTable } from '../../db/types.js';
import { insertReturningAll } from '../../db/portable.js';
import type { LogLine, TaskStore } from '../../engine/ports.js';
import type { TaskOutputRepository } from './task-output.repository.js';

export type TaskRow = Selectable<TaskTable>;
export type TaskWithNames = TaskRow & {
  user_name: string | null;
  tpl_name: string | null;
  tpl_type: string | null;
  tpl_app: string | null;
  tpl_playbook: string | null;
  /** The workflow whose run this task is a node's try of (null for a task of its own). */
  run_workflow_id: number | null;
  /** The build task a deploy task deploys, loaded for a whole list at once. */
  build_task: TaskRow | null;
};

/** Every column of a task but its output and inputs (a new column must be added here: the list rows' type says so). */
const TASK_LIST_COLUMNS = [
  'task.id',
  'task.project_id',
  'task.template_id',
  'task.status',
  'task.message',
  'task.commit_hash',
  'task.commit_message',
  'task.version',
  'task.build_task_id',
  'task.user_id',
  'task.integration_id',
  'task.schedule_id',
  'task.environment',
  'task.secret',
  'task.params',
  'task.git_branch',
  'task.inventory_id',
  'task.arguments',
  'task.created',
  'task.start',
  'task.end',
  'task.runner_id',
  'task.node_id',
  'task.env',
  'task.stop_force',
  'task.runner_reported',
  'task.workflow_run_id',
  'task.workflow_node',
  'task.workflow_attempt',
  'task.environment_id',
] as const;

/** Tasks with their user's and template's names: the rows of the task lists (templates' `last_task` too). */
export function selectTasksWithNames(db: Kysely<Database>) {
  return (
    db
      .selectFrom('task')
      .leftJoin('user', 'user.id', 'task.user_id')
      .innerJoin('template', 'template.id', 'task.template_id')
      .leftJoin('workflow_run', 'workflow_run.id', 'task.workflow_run_id')
      .select(TASK_LIST_COLUMNS)
      // Up to 1 MiB each, never shown in a list: read one task's with GET .../tasks/{id}/result.
      .select([sql<string | null>`null`.as('output'), sql<string | null>`null`.as('inputs')])
      .select([
        'user.name as user_name',
        'template.name as tpl_name',
        'template.type as tpl_type',
        'template.app as tpl_app',
        'template.playbook as tpl_playbook',
        'workflow_run.workflow_id as run_workflow_id',
      ])
  );
}

/** Adds each row's build task with one query for the whole list (lists run to 1000 rows). */
export async function withBuildTasks<T extends TaskRow>(
  db: Kysely<Database>,
  rows: T[],
): Promise<Array<T & { build_task: TaskRow | null }>> {
  const ids = [...new Set(rows.map((r) => r.build_task_id).filter((id): id is number => id !== null))];
  const builds = ids.length ? await db.selectFrom('task').selectAll().where('id', 'in', ids).execute() : [];
  const byId = new Map(builds.map((b) => [b.id, b]));
  // In place: the rows are the driver's fresh objects, and a copy of each was a list's second-largest cost.
  return rows.map((r) => Object.assign(r, { build_task: (r.build_task_id !== null && byId.get(r.build_task_id)) || null }));
}

/** Which waiting tasks a claimer may take: a remote runner takes its tag's templates, of its project if it has one. */
export interface WaitingScope {
  runnerTag?: string;
  projectId?: number | null;
}

/** More projects than any install has, so the fence in `waitingInTurn` never cuts. */
const MAX_QUEUE_PROJECTS = 2_000_000_000;

/**
 * Waiting tasks in turn: round-robin across projects, FIFO within each, decided by the database
 * so every node and engine agrees. A task's turn is its rank among its project's waiting tasks;
 * tasks of one turn go by how long ago their project last had a task started (never first), then
 * by id. So 150 queued tasks of one project delay another project's first task by one task, not
 * by all of them, and a project that just had a slot waits behind one that did not.
 *
 * The last start is looked up once per project with waiting tasks: its newest task with a start,
 * found by walking the project's index back past the tasks still waiting.
 */
export function waitingInTurn(db: Kysely<Database>, limit: number, scope: WaitingScope = {}) {
  const waiting = () => {
    let q = db.selectFrom('task').where('task.status', '=', 'waiting');
    if (scope.projectId != null) q = q.where('task.project_id', '=', scope.projectId);
    if (scope.runnerTag !== undefined) {
      const tag = scope.runnerTag;
      q = q.where('task.template_id', 'in', (eb) =>
        eb
          .selectFrom('template')
          .select('template.id')
          .where(sql<string>`coalesce(${sql.ref('template.runner_tag')}, '')`, '=', tag),
      );
    }
    return q;
  };
  const turns = waiting()
    .select(['task.id', 'task.project_id', 'task.template_id', 'task.version'])
    .select(
      sql<number>`row_number() over (partition by ${sql.ref('task.project_id')} order by ${sql.ref('task.id')})`.as(
        'turn',
      ),
    );
  const projects = waiting().select('task.project_id').groupBy('task.project_id');
  const served = db
    .selectFrom(projects.as('wp'))
    .select((eb) => [
      'wp.project_id',
      eb
        .selectFrom('task as started')
        .select('started.start')
        .whereRef('started.project_id', '=', 'wp.project_id')
        .where('started.start', 'is not', null)
        .orderBy('started.id', 'desc')
        .limit(1)
        .as('last_start'),
    ])
    // A fence: no engine merges a derived table with a LIMIT into the outer query, which would
    // move the lookup into the ORDER BY and run it once per waiting task (MariaDB took minutes).
    .limit(MAX_QUEUE_PROJECTS);
  return (
    db
      .selectFrom(turns.as('w'))
      .innerJoin(served.as('s'), 's.project_id', 'w.project_id')
      .innerJoin('project', 'project.id', 'w.project_id')
      .select(['w.id', 'w.project_id', 'w.template_id', 'w.version', 'project.max_parallel_tasks'])
      // A task past the limit's turn can never be among the first `limit`.
      .where('w.turn', '<=', limit)
      .orderBy('w.turn')
      // '' sorts before any ISO time on every engine (PostgreSQL would put a NULL last).
      .orderBy(sql`coalesce(${sql.ref('s.last_start')}, '')`)
      .orderBy('w.id')
      .limit(limit)
  );
}

export type NewTask = Omit<
  TaskRow,
  | 'id'
  | 'start'
  | 'end'
  | 'runner_id'
  | 'node_id'
  | 'env'
  | 'stop_force'
  | 'runner_reported'
  | 'workflow_run_id'
  | 'workflow_node'
  | 'workflow_attempt'
  | 'output'
  | 'inputs'
> & {
  env?: string | null;
  /** JSON `{nodeId: output}` of earlier workflow nodes, given to the task as data. */
  inputs?: string | null;
  workflow_run_id?: number | null;
  workflow_node?: string | null;
  workflow_attempt?: number | null;
};

/** Tasks, their queue and their log lines; every read by id is scoped by project. */
export class TasksRepository implements TaskStore {
  /** Log lines are read and written by the log table's own repository (its engine-specific fast paths). */
  constructor(
    private readonly db: Kysely<Database>,
    private readonly outputRepo: TaskOutputRepository,
    private readonly engine: Engine = 'sqlite',
  ) {}

  private withNames() {
    return selectTasksWithNames(this.db);
  }

  insert(values: NewTask): Promise<TaskRow> {
    return insertReturningAll(this.db, 'task', values);
  }

  async find(projectId: number, id: number): Promise<TaskWithNames | undefined> {
    const row = await this.withNames()
      .where('task.project_id', '=', projectId)
      .where('task.id', '=', id)
      .executeTakeFirst();
    return row ? (await withBuildTasks(this.db, [row]))[0] : undefined;
  }

  /** Any project's task with names (the admin's `/api/tasks/{id}`). */
  async findAnyWithNames(id: number): Promise<TaskWithNames | undefined> {
    const row = await this.withNames().where('task.id', '=', id).executeTakeFirst();
    return row ? (await withBuildTasks(this.db, [row]))[0] : undefined;
  }

  /** A task's output and inputs (JSON text), by id within its project. */
  result(projectId: number, id: number): Promise<Pick<TaskRow, 'output' | 'inputs'> | undefined> {
    return this.db
      .selectFrom('task')
      .select(['output', 'inputs'])
      .where('project_id', '=', projectId)
      .where('id', '=', id)
      .executeTakeFirst();
  }

  /** Unscoped: for the engine, which works by task id only. */
  findById(id: number): Promise<TaskRow | undefined> {
    return this.db.selectFrom('task').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async last(
    projectId: number,
    limit: number,
    templateId?: number,
    status?: string,
    host?: string,
  ): Promise<TaskWithNames[]> {
    let q = this.withNames().where('task.project_id', '=', projectId);
    if (templateId !== undefined) q = q.where('task.template_id', '=', templateId);
    if (status) q = q.where('task.status', '=', status);
    // Tasks whose PLAY RECAP listed the host (hosts module, table task_host).
    if (host)
      q = q.where(
        'task.id',
        'in',
        this.db.selectFrom('task_host').select('task_host.task_id').where('task_host.project_id', '=', projectId).where('task_host.host', '=', host),
      );
    return withBuildTasks(this.db, await q.orderBy('task.id', 'desc').limit(limit).execute());
  }

  /** Newest task of a template that carries a version (for build numbering). */
  /**
   * The build a workflow's deploy node deploys: the newest successful build of `buildTemplateId`
   * made by the same run, else the newest successful one of the project.
   */
  async buildForRun(projectId: number, buildTemplateId: number, runId: number): Promise<number | null> {
    const newest = (inRun: boolean) => {
      let q = this.db
        .selectFrom('task')
        .select('id')
        .where('project_id', '=', projectId)
        .where('template_id', '=', buildTemplateId)
        .where('status', '=', 'success');
      if (inRun) q = q.where('workflow_run_id', '=', runId);
      return q.orderBy('id', 'desc').executeTakeFirst();
    };
    return ((await newest(true)) ?? (await newest(false)))?.id ?? null;
  }

  lastVersioned(projectId: number, templateId: number) {
    return this.db
      .selectFrom('task')
      .select(['id', 'version'])
      .where('project_id', '=', projectId)
      .where('template_id', '=', templateId)
      .where('version', 'is not', null)
      .orderBy('id', 'desc')
      .executeTakeFirst();
  }

  /** Waiting tasks in the order they take their turn (see `waitingInTurn`), with their project's limit. */
  waiting(limit: number) {
    return waitingInTurn(this.db, limit).execute();
  }

  async countActive(projectId?: number): Promise<number> {
    let q = this.db
      .selectFrom('task')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('status', 'in', ACTIVE_STATUSES);
    if (projectId !== undefined) q = q.where('project_id', '=', projectId);
    const r = await q.executeTakeFirst();
    return Number(r?.n ?? 0);
  }

  /** Atomically moves a task from one of `from` to `to`; false when someone else moved it first. */
  /**
   * The dispatcher's claim of a waiting task for a node. On PostgreSQL the row is locked with
   * SKIP LOCKED first, so nodes racing for the queue pass over each other's rows instead of
   * waiting on them; on every engine the status condition makes the claim exactly-once.
   */
  async claim(id: number, nodeId: string, start: string): Promise<boolean> {
    if (this.engine === 'postgres') {
      const r = await sql`UPDATE task SET status = 'starting', node_id = ${nodeId}, start = ${start}
        WHERE id = (SELECT id FROM task WHERE id = ${id} AND status = 'waiting' FOR UPDATE SKIP LOCKED)`.execute(
        this.db,
      );
      return Number(r.numAffectedRows ?? 0) === 1;
    }
    return this.transition(id, ['waiting'], 'starting', { node_id: nodeId, start });
  }

  /** Moves a task from one of `from` to `to`; with `ownerNode`, only while that node owns it. */
  async transition(
    id: number,
    from: readonly string[],
    to: string,
    patch: Partial<TaskRow> = {},
    ownerNode?: string,
  ): Promise<boolean> {
    let q = this.db
      .updateTable('task')
      .set({ ...patch, status: to })
      .where('id', '=', id)
      .where('status', 'in', from);
    if (ownerNode !== undefined) q = q.where('node_id', '=', ownerNode);
    const r = await q.executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  /** Deletes a task of the project and its log when its status is one of `statuses`; answers whether it did. */
  async deleteIn(projectId: number, id: number, statuses: readonly string[]): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const r = await trx
        .deleteFrom('task')
        .where('project_id', '=', projectId)
        .where('id', '=', id)
        .where('status', 'in', statuses)
        .executeTakeFirst();
      if (Number(r.numDeletedRows) !== 1) return false;
      // The foreign key cascades too; said here so the log goes whatever the engine's settings.
      await trx.deleteFrom('task_output').where('task_id', '=', id).execute();
      return true;
    });
  }

  async setEndIfMissing(id: number, end: string): Promise<void> {
    await this.db.updateTable('task').set({ end }).where('id', '=', id).where('end', 'is', null).execute();
  }

  async update(id: number, patch: Partial<TaskRow>): Promise<void> {
    await this.db.updateTable('task').set(patch).where('id', '=', id).execute();
  }

  appendOutput(lines: LogLine[]): Promise<void> {
    return this.outputRepo.append(lines);
  }

  /** The highest seq of a task's log (0 when it has none), to add a line after the last. */
  async lastSeq(taskId: number): Promise<number> {
    return (await this.outputRepo.lastSeq(taskId)) ?? 0;
  }

  /** Tasks this node left running when it stopped. */
  orphans(nodeId: string, statuses: readonly string[]) {
    return this.db
      .selectFrom('task')
      .select(['id', 'project_id', 'template_id', 'status'])
      .where('node_id', '=', nodeId)
      .where('status', 'in', statuses)
      .execute();
  }

  /** The ids of a template's waiting and running tasks (to stop them all). */
  async unfinishedOfTemplate(projectId: number, templateId: number): Promise<number[]> {
    const rows = await this.db
      .selectFrom('task')
      .select('id')
      .where('project_id', '=', projectId)
      .where('template_id', '=', templateId)
      .where('status', 'in', ['waiting', 'waiting_approval', ...ACTIVE_STATUSES])
      .orderBy('id')
      .execute();
    return rows.map((r) => r.id);
  }

  /** Waiting and running tasks across projects, for the admin's active tasks page. */
  active() {
    return this.db
      .selectFrom('task')
      .leftJoin('user', 'user.id', 'task.user_id')
      .leftJoin('runner', 'runner.id', 'task.runner_id')
      .select([
        'task.id',
        'task.project_id',
        'task.template_id',
        'task.status',
        'task.runner_id',
        'task.node_id',
        'user.username',
        'runner.name as runner_name',
      ])
      .where('task.status', 'in', ['waiting', ...ACTIVE_STATUSES])
      .orderBy('task.id')
      .execute();
  }
}
