import {
  ErrorCodes,
  type WorkflowGraph,
  type WorkflowNode,
  type WorkflowRun,
  type WorkflowRunSummary,
} from '@gantry/contracts';
import type { Clock } from '../../platform/clock.js';
import { ConflictError, NotFoundError } from '../../platform/errors.js';
import type { Actor } from '../../platform/resource-routes.js';
import { noAudit, type AuditRecorder } from '../audit/audit.port.js';
import type { EventsService } from '../events/events.service.js';
import type { WorkflowsService } from '../workflows/workflows.service.js';
import { presentRun, presentRunSummary } from './workflow-runs.presenter.js';
import type { RunRow, WorkflowRunsRepository } from './workflow-runs.repository.js';

/** Where a run came from besides a user: a schedule, an integration, or a nested-workflow node. */
export interface RunOrigin {
  scheduleId?: number;
  integrationId?: number;
  /** An integration's extracted values, for each template node's task. */
  values?: { vars: Record<string, unknown>; env: Record<string, string> };
  parent?: { runId: number; node: string; attempt: number };
}

/** The most runs one list answers. */
const LIST_LIMIT = 200;

/**
 * Workflow runs: start, read, stop, resume, re-run. The service only writes the rows; the driver
 * (workflow-driver.ts) on whichever server node holds a run's lease does the steps, woken here
 * through `kick` so a change is acted on at once on this node.
 */
export class WorkflowRunsService {
  constructor(
    private readonly repo: WorkflowRunsRepository,
    private readonly workflows: Pick<WorkflowsService, 'get'>,
    private readonly events: EventsService,
    private readonly clock: Clock,
  ) {}

  /** Wakes this node's driver (the composition root wires it). */
  kick: () => void = () => undefined;
  audit: AuditRecorder = noAudit;

  /** Starts a run of the workflow's current graph (console, API, CLI, schedules and integrations call this). */
  async start(
    actor: Actor | null,
    projectId: number,
    workflowId: number,
    origin: RunOrigin = {},
  ): Promise<WorkflowRun> {
    const row = await this.insertRun(actor?.id ?? null, projectId, workflowId, origin);
    await this.events.record({
      projectId,
      userId: actor?.id ?? null,
      objectType: 'workflow',
      objectId: workflowId,
      description: `Workflow ${row.workflow_name} run #${row.id} started`,
    });
    await this.audit.record({
      action: 'task_start',
      objectType: 'workflow',
      objectId: workflowId,
      projectId,
      after: {
        run_id: row.id,
        workflow: row.workflow_name,
        schedule_id: origin.scheduleId ?? null,
        integration_id: origin.integrationId ?? null,
      },
    });
    this.kick();
    return this.present(row);
  }

  /**
   * The nested run of a node's try, made once: the (parent run, node, attempt) key is unique, so
   * a second driver that gets here finds the first one's run.
   */
  async startChild(parent: RunRow, node: WorkflowNode, attempt: number): Promise<number> {
    const found = await this.repo.findChild(parent.id, node.id, attempt);
    if (found) return found.id;
    try {
      const row = await this.insertRun(parent.user_id, parent.project_id, node.workflow_id!, {
        scheduleId: parent.schedule_id ?? undefined,
        parent: { runId: parent.id, node: node.id, attempt },
      });
      await this.events.record({
        projectId: parent.project_id,
        userId: parent.user_id,
        objectType: 'workflow',
        objectId: row.workflow_id,
        description: `Workflow ${row.workflow_name} run #${row.id} started by run #${parent.id}`,
      });
      this.kick();
      return row.id;
    } catch (e) {
      const made = await this.repo.findChild(parent.id, node.id, attempt);
      if (made) return made.id;
      throw e;
    }
  }

  private async insertRun(
    userId: number | null,
    projectId: number,
    workflowId: number,
    origin: RunOrigin,
  ): Promise<RunRow> {
    const w = await this.workflows.get(projectId, workflowId);
    const graph = JSON.parse(w.graph) as WorkflowGraph;
    const now = this.clock.now().toISOString();
    return this.repo.insert(
      {
        project_id: projectId,
        workflow_id: w.id,
        workflow_name: w.name,
        graph: w.graph,
        status: 'running',
        user_id: userId,
        parent_run_id: origin.parent?.runId ?? null,
        parent_node: origin.parent?.node ?? null,
        parent_attempt: origin.parent?.attempt ?? null,
        schedule_id: origin.scheduleId ?? null,
        integration_id: origin.integrationId ?? null,
        created: now,
        ended: null,
        lease_owner: null,
        lease_until: null,
        due_at: now,
        start_values: origin.values ? JSON.stringify(origin.values) : null,
      },
      graph.nodes.map((n) => n.id),
    );
  }

  async list(projectId: number, workflowId: number): Promise<WorkflowRunSummary[]> {
    await this.workflows.get(projectId, workflowId);
    return (await this.repo.list(projectId, workflowId, LIST_LIMIT)).map(presentRunSummary);
  }

  async get(projectId: number, workflowId: number, runId: number): Promise<WorkflowRun> {
    return this.present(await this.find(projectId, workflowId, runId));
  }

  /** Stop: the driver stops the run's tasks, cancels its approvals and nested runs; the run is stopped once none is active. */
  async stop(actor: Actor, projectId: number, workflowId: number, runId: number): Promise<void> {
    const row = await this.find(projectId, workflowId, runId);
    if (
      !(await this.repo.transition(row.id, ['running'], { status: 'stopping', due_at: this.clock.now().toISOString() }))
    )
      return;
    await this.events.record({
      projectId,
      userId: actor.id,
      objectType: 'workflow',
      objectId: workflowId,
      description: `Workflow ${row.workflow_name} run #${row.id} stopped`,
    });
    await this.audit.record({
      action: 'task_stop',
      objectType: 'workflow',
      objectId: workflowId,
      projectId,
      before: { run_id: row.id, status: row.status },
      after: { status: 'stopping' },
    });
    this.kick();
  }

  /** Resume a failed or stopped run from where it failed: successful nodes stay, the others run again. */
  async resume(actor: Actor, projectId: number, workflowId: number, runId: number): Promise<WorkflowRun> {
    const row = await this.find(projectId, workflowId, runId);
    const now = this.clock.now().toISOString();
    if (!['failed', 'stopped'].includes(row.status) || !(await this.repo.resume(row.id, now)))
      throw new ConflictError('Only a failed or stopped run can be resumed', {
        code: ErrorCodes.workflowRunNotResumable,
        status: row.status,
      });
    await this.events.record({
      projectId,
      userId: actor.id,
      objectType: 'workflow',
      objectId: workflowId,
      description: `Workflow ${row.workflow_name} run #${row.id} resumed`,
    });
    await this.audit.record({
      action: 'task_start',
      objectType: 'workflow',
      objectId: workflowId,
      projectId,
      before: { run_id: row.id, status: row.status },
      after: { run_id: row.id, status: 'running', resumed: true },
    });
    this.kick();
    return this.get(projectId, workflowId, runId);
  }

  /** A new run of the same workflow (its current graph). */
  async rerun(actor: Actor, projectId: number, workflowId: number, runId: number): Promise<WorkflowRun> {
    await this.find(projectId, workflowId, runId);
    return this.start(actor, projectId, workflowId);
  }

  private async find(projectId: number, workflowId: number, runId: number): Promise<RunRow> {
    const row = await this.repo.find(projectId, workflowId, runId);
    if (!row) throw new NotFoundError('Workflow run not found', { code: ErrorCodes.workflowRunNotFound });
    return row;
  }

  private async present(row: RunRow): Promise<WorkflowRun> {
    return presentRun(
      row,
      await this.repo.nodes(row.id),
      await this.repo.tasks(row.id),
      await this.repo.taskApprovals(row.id),
    );
  }
}
