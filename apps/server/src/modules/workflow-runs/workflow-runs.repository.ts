import type { Insertable, Kysely, Selectable, Updateable } from 'kysely';
import { insertReturningAll } from '../../db/portable.js';
import type { WorkflowRunNodeTable, WorkflowRunTable } from '../../db/tables/workflow-run.js';
import type { Database } from '../../db/types.js';

export type RunRow = Selectable<WorkflowRunTable>;
export type RunNodeRow = Selectable<WorkflowRunNodeTable>;
/** A node's task as the driver and the presenter read it. */
export interface RunTaskRow {
  id: number;
  status: string;
  workflow_node: string | null;
  workflow_attempt: number | null;
  output: string | null;
}

/** Runs still driven: the driver looks at these when due. */
export const DRIVEN_RUN_STATUSES = ['running', 'stopping'];

/** The workflow_run and workflow_run_node tables and the tasks of runs; reads by id are scoped by project. */
export class WorkflowRunsRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /** A run and its node rows, written together (a run without its nodes would never end). */
  async insert(run: Insertable<WorkflowRunTable>, nodeIds: readonly string[]): Promise<RunRow> {
    return this.db.transaction().execute(async (trx) => {
      const row = await insertReturningAll(trx, 'workflow_run', run);
      if (nodeIds.length)
        await trx
          .insertInto('workflow_run_node')
          .values(nodeIds.map((node_id) => ({ run_id: row.id, node_id, status: 'pending' })))
          .execute();
      return row;
    });
  }

  find(projectId: number, workflowId: number, id: number): Promise<RunRow | undefined> {
    return this.db
      .selectFrom('workflow_run')
      .selectAll()
      .where('project_id', '=', projectId)
      .where('workflow_id', '=', workflowId)
      .where('id', '=', id)
      .executeTakeFirst();
  }

  findById(id: number): Promise<RunRow | undefined> {
    return this.db.selectFrom('workflow_run').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** The nested run a node's try started, if it did. */
  findChild(parentRunId: number, node: string, attempt: number): Promise<RunRow | undefined> {
    return this.db
      .selectFrom('workflow_run')
      .selectAll()
      .where('parent_run_id', '=', parentRunId)
      .where('parent_node', '=', node)
      .where('parent_attempt', '=', attempt)
      .executeTakeFirst();
  }

  list(projectId: number, workflowId: number, limit: number): Promise<RunRow[]> {
    return this.db
      .selectFrom('workflow_run')
      .selectAll()
      .where('project_id', '=', projectId)
      .where('workflow_id', '=', workflowId)
      .orderBy('id', 'desc')
      .limit(limit)
      .execute();
  }

  nodes(runId: number): Promise<RunNodeRow[]> {
    return this.db.selectFrom('workflow_run_node').selectAll().where('run_id', '=', runId).execute();
  }

  /** Every task of a run, by node and try. */
  tasks(runId: number): Promise<RunTaskRow[]> {
    return this.db
      .selectFrom('task')
      .select(['id', 'status', 'workflow_node', 'workflow_attempt', 'output'])
      .where('workflow_run_id', '=', runId)
      .orderBy('workflow_attempt')
      .execute();
  }

  /** The approvals the run's tasks waited for (templates with an approval policy), by task id. */
  async taskApprovals(runId: number): Promise<Map<number, number>> {
    const rows = await this.db
      .selectFrom('approval')
      .innerJoin('task', 'task.id', 'approval.task_id')
      .select(['approval.id', 'approval.task_id'])
      .where('task.workflow_run_id', '=', runId)
      .execute();
    return new Map(rows.map((r) => [r.task_id!, r.id]));
  }

  taskFor(runId: number, node: string, attempt: number): Promise<RunTaskRow | undefined> {
    return this.db
      .selectFrom('task')
      .select(['id', 'status', 'workflow_node', 'workflow_attempt', 'output'])
      .where('workflow_run_id', '=', runId)
      .where('workflow_node', '=', node)
      .where('workflow_attempt', '=', attempt)
      .executeTakeFirst();
  }

  /** Runs a driver should look at now: driven, due, and with no live lease of another node. */
  async due(now: string, nodeId: string, limit: number): Promise<number[]> {
    const rows = await this.db
      .selectFrom('workflow_run')
      .select('id')
      .where('status', 'in', DRIVEN_RUN_STATUSES)
      .where('due_at', '<=', now)
      .where((eb) =>
        eb.or([eb('lease_owner', 'is', null), eb('lease_until', '<', now), eb('lease_owner', '=', nodeId)]),
      )
      .orderBy('due_at')
      .limit(limit)
      .execute();
    return rows.map((r) => r.id);
  }

  /**
   * Takes the run's lease when it is free, expired or this node's; answers the run when this node
   * holds it afterwards. Read back rather than counted: MySQL counts an update that changed nothing as none.
   */
  async claim(id: number, nodeId: string, now: string, until: string): Promise<RunRow | null> {
    await this.db
      .updateTable('workflow_run')
      .set({ lease_owner: nodeId, lease_until: until })
      .where('id', '=', id)
      .where('status', 'in', DRIVEN_RUN_STATUSES)
      .where((eb) =>
        eb.or([eb('lease_owner', 'is', null), eb('lease_until', '<', now), eb('lease_owner', '=', nodeId)]),
      )
      .execute();
    const row = await this.findById(id);
    return row && row.lease_owner === nodeId && row.lease_until === until ? row : null;
  }

  /**
   * Gives the lease back and says when the run must be looked at next; nothing when another node
   * took it meanwhile. A wake during the lease (`due_at` no longer the one claimed) is kept: the
   * event it stands for may have come after the look.
   */
  async release(id: number, nodeId: string, dueAt: string, claimedDue: string): Promise<void> {
    await this.db
      .updateTable('workflow_run')
      .set({ due_at: dueAt })
      .where('id', '=', id)
      .where('lease_owner', '=', nodeId)
      .where('due_at', '=', claimedDue)
      .execute();
    // The owner stays as the run's last driver (what an operator, and the cluster test, look at); the lease ends now.
    await this.db
      .updateTable('workflow_run')
      .set({ lease_until: '' })
      .where('id', '=', id)
      .where('lease_owner', '=', nodeId)
      .execute();
  }

  /** Makes a driven run due now (a task of it ended, it was stopped, a nested run ended). */
  async wake(id: number, now: string): Promise<void> {
    await this.db
      .updateTable('workflow_run')
      .set({ due_at: now })
      .where('id', '=', id)
      .where('status', 'in', DRIVEN_RUN_STATUSES)
      .execute();
  }

  /** Makes the run of a task due now, when the task belongs to a driven run. */
  async wakeForTask(taskId: number, now: string): Promise<void> {
    const task = await this.db.selectFrom('task').select('workflow_run_id').where('id', '=', taskId).executeTakeFirst();
    if (task?.workflow_run_id) await this.wake(task.workflow_run_id, now);
  }

  /** Changes a run from one of `from`; answers whether it did. */
  async transition(id: number, from: readonly string[], values: Updateable<WorkflowRunTable>): Promise<boolean> {
    const r = await this.db
      .updateTable('workflow_run')
      .set(values)
      .where('id', '=', id)
      .where('status', 'in', from)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }

  /** Changes a node row still as it was read (status and attempts); answers whether it did. */
  async updateNode(
    row: Pick<RunNodeRow, 'run_id' | 'node_id' | 'status' | 'attempts'>,
    values: Updateable<WorkflowRunNodeTable>,
  ): Promise<boolean> {
    const r = await this.db
      .updateTable('workflow_run_node')
      .set(values)
      .where('run_id', '=', row.run_id)
      .where('node_id', '=', row.node_id)
      .where('status', '=', row.status)
      .where('attempts', '=', row.attempts)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }

  /**
   * Resume: the run back to running and its failed, stopped and skipped nodes back to pending
   * with a fresh retry budget, in one transaction (a driver never sees the run running with its
   * old final nodes, which would end it again). A nested-workflow node whose run failed or was
   * stopped resumes that run instead (its successful nodes are not rerun either) and follows it
   * again. False when the run was not failed or stopped.
   */
  async resume(runId: number, now: string): Promise<boolean> {
    return this.db.transaction().execute((trx) => resumeIn(trx, runId, now));
  }

  /** Template ids named by the stored graphs of a project's workflows (a template a workflow runs is kept). */
  async workflowNamingTemplate(projectId: number, templateId: number): Promise<string | null> {
    const rows = await this.db
      .selectFrom('workflow')
      .select(['name', 'graph'])
      .where('project_id', '=', projectId)
      .orderBy('id')
      .execute();
    for (const r of rows) {
      const g = JSON.parse(r.graph) as { nodes: Array<{ type: string; template_id?: number | null }> };
      if (g.nodes.some((n) => n.type === 'template' && n.template_id === templateId)) return r.name;
    }
    return null;
  }
}

async function resumeIn(trx: Kysely<Database>, runId: number, now: string): Promise<boolean> {
  const r = await trx
    .updateTable('workflow_run')
    .set({ status: 'running', ended: null, due_at: now })
    .where('id', '=', runId)
    .where('status', 'in', ['failed', 'stopped'])
    .executeTakeFirst();
  if (Number(r.numUpdatedRows) === 0) return false;
  const nested = await trx
    .selectFrom('workflow_run_node')
    .select(['node_id', 'child_run_id'])
    .where('run_id', '=', runId)
    .where('status', 'in', ['failed', 'stopped'])
    .where('child_run_id', 'is not', null)
    .execute();
  const following: string[] = [];
  for (const n of nested) {
    if (!(await resumeIn(trx, n.child_run_id!, now))) continue;
    following.push(n.node_id);
    await trx
      .updateTable('workflow_run_node')
      .set({ status: 'running', tries: 0, next_try_at: null, ended: null, error: null })
      .where('run_id', '=', runId)
      .where('node_id', '=', n.node_id)
      .execute();
  }
  let reset = trx
    .updateTable('workflow_run_node')
    .set({
      status: 'pending',
      tries: 0,
      next_try_at: null,
      started: null,
      ended: null,
      error: null,
      approval_id: null,
      child_run_id: null,
    })
    .where('run_id', '=', runId)
    .where('status', 'in', ['failed', 'stopped', 'skipped']);
  if (following.length) reset = reset.where('node_id', 'not in', following);
  await reset.execute();
  return true;
}
