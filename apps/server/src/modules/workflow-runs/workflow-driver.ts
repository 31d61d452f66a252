import {
  isFinished,
  taskCreateSchema,
  WORKFLOW_NODE_APPROVAL_ERRORS,
  type WorkflowGraph,
  type WorkflowNode,
  type WorkflowNodeStatus,
} from '@gantry/contracts';
import type { Clock } from '../../platform/clock.js';
import type { TaskActor, TaskInput, TaskOrigin } from '../tasks/tasks.service.js';
import type { ApprovalsPort } from './approvals.port.js';
import { isFinalNode, readiness, runOutcome } from './run-graph.js';
import type { RunNodeRow, RunRow, RunTaskRow, WorkflowRunsRepository } from './workflow-runs.repository.js';

/** How long a node holds a run while it advances it; another node takes over after. */
export const RUN_LEASE_MS = 15_000;
/** How often every node looks for due runs. */
export const DRIVER_POLL_MS = 1_000;
/** A run waiting on a task is looked at this often even when no event says the task ended. */
const TASK_RECHECK_MS = 5_000;
/** Approvals and nested runs are read from the database: looked at this often. */
const DECISION_RECHECK_MS = 1_000;

/** What the driver asks of tasks (the tasks module). */
export interface DriverTasks {
  create(actor: TaskActor | null, projectId: number, input: TaskInput, origin: TaskOrigin): Promise<{ id: number }>;
  stop(projectId: number, id: number, force: boolean): Promise<void>;
}

export interface DriverDeps {
  repo: WorkflowRunsRepository;
  tasks: DriverTasks;
  /** Starts (or finds) the nested run of a node's try; answers its id. */
  startChild(parent: RunRow, node: WorkflowNode, attempt: number): Promise<number>;
  /** The user who started a run, with their role in the project, as a task's author. */
  actorFor(projectId: number, userId: number | null): Promise<TaskActor | null>;
  clock: Clock;
  nodeId: string;
  log: (line: string) => void;
}

/** Until approvals are wired: an approval node fails with this error rather than waiting forever. */
const noApprovals: ApprovalsPort = {
  openForNode: async () => {
    throw new Error('Approvals are not available on this server');
  },
  state: async () => 'rejected',
  cancel: async () => undefined,
};

/** A task ended, as the run sees it: success, or a status that fails its node. */
const taskFailed = (status: string) => isFinished(status) && status !== 'success';

/**
 * Advances workflow runs through the database. Every server node polls for due runs; the one
 * that takes a run's lease reads its nodes and their tasks, starts what may start, and gives the
 * lease back with the time to look again. Nothing is kept in memory between two looks, so a run
 * survives a restart or the death of the node that drove it; starting a try inserts its task
 * under a unique (run, node, attempt) key, so a node that lost its lease mid-step cannot start
 * the same try twice.
 */
export class WorkflowDriver {
  private timer: NodeJS.Timeout | undefined;
  private busy = false;
  private again = false;
  private stopped = true;

  constructor(private readonly d: DriverDeps) {}

  /** Approval nodes open and read their approvals here (the composition root wires the approvals module in). */
  approvals: ApprovalsPort = noApprovals;

  start(): void {
    this.stopped = false;
    this.timer = setInterval(() => this.kick(), DRIVER_POLL_MS);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    while (this.busy) await new Promise((r) => setTimeout(r, 20));
  }

  /** Makes a run due now and looks at it (its approval was decided, a task of it ended). */
  async wake(runId: number): Promise<void> {
    await this.d.repo.wake(runId, this.iso());
    this.kick();
  }

  /** Looks for due runs now (a run was started, stopped or woken on this node). */
  kick(): void {
    if (this.stopped) return;
    if (this.busy) {
      this.again = true;
      return;
    }
    this.busy = true;
    void this.pass()
      .catch((e: unknown) => this.d.log(`workflow driver: ${(e as Error).message}`))
      .finally(() => {
        this.busy = false;
        if (this.again) {
          this.again = false;
          this.kick();
        }
      });
  }

  private iso(offsetMs = 0): string {
    return new Date(this.d.clock.now().getTime() + offsetMs).toISOString();
  }

  private async pass(): Promise<void> {
    for (const id of await this.d.repo.due(this.iso(), this.d.nodeId, 20)) {
      if (this.stopped) return;
      const run = await this.d.repo.claim(id, this.d.nodeId, this.iso(), this.iso(RUN_LEASE_MS));
      if (!run) continue;
      let due = this.iso(TASK_RECHECK_MS);
      try {
        due = await this.advance(run);
      } catch (e) {
        this.d.log(`workflow run ${run.id}: ${(e as Error).message}`);
      } finally {
        await this.d.repo.release(run.id, this.d.nodeId, due, run.due_at);
      }
    }
  }

  /** One look at a run: follow its active nodes, start or skip what the edges say, end it when every node is final. Answers when to look again. */
  async advance(run: RunRow): Promise<string> {
    const graph = JSON.parse(run.graph) as WorkflowGraph;
    const stopping = run.status === 'stopping';
    const rows = new Map((await this.d.repo.nodes(run.id)).map((r) => [r.node_id, r]));
    const tasks = await this.d.repo.tasks(run.id);
    const now = this.d.clock.now().getTime();
    const wakes: number[] = [now + TASK_RECHECK_MS];
    const set = (row: RunNodeRow, values: Partial<RunNodeRow>) => rows.set(row.node_id, { ...row, ...values });

    for (const def of graph.nodes) {
      const row = rows.get(def.id);
      if (!row) continue;
      if (row.status === 'running' || row.status === 'waiting_approval') {
        const next = await this.follow(run, def, row, tasks, stopping);
        if (next) set(row, next);
      } else if (row.status === 'retry_wait') {
        if (stopping) {
          if (await this.d.repo.updateNode(row, { status: 'stopped', ended: this.iso(), next_try_at: null }))
            set(row, { status: 'stopped' });
        } else if (row.next_try_at && row.next_try_at <= this.iso()) {
          const next = await this.startTry(run, def, row, rows, tasks);
          if (next) set(row, next);
        }
      }
    }
    // Edges fire in graph order until nothing changes: a skip may skip what follows it.
    for (let changed = true; changed;) {
      changed = false;
      for (const def of graph.nodes) {
        const row = rows.get(def.id);
        if (!row || row.status !== 'pending') continue;
        if (stopping) {
          if (await this.d.repo.updateNode(row, { status: 'stopped', ended: this.iso() }))
            set(row, { status: 'stopped' });
          continue;
        }
        const ready = readiness(graph, def.id, (id) => (rows.get(id)?.status ?? 'skipped') as WorkflowNodeStatus);
        if (ready === 'wait') continue;
        const next =
          ready === 'skip'
            ? (await this.d.repo.updateNode(row, { status: 'skipped', ended: this.iso() }))
              ? { status: 'skipped' }
              : null
            : await this.startTry(run, def, row, rows, tasks);
        if (next) {
          set(row, next);
          changed = true;
        }
      }
    }
    const status = (id: string) => (rows.get(id)?.status ?? 'skipped') as WorkflowNodeStatus;
    if (graph.nodes.every((n) => isFinalNode(status(n.id)))) {
      await this.finish(run, stopping ? 'stopped' : runOutcome(graph, status));
      return this.iso(TASK_RECHECK_MS);
    }
    for (const def of graph.nodes) {
      const row = rows.get(def.id)!;
      if (row.status === 'retry_wait' && row.next_try_at) wakes.push(Date.parse(row.next_try_at));
      if (row.status !== 'running' && row.status !== 'waiting_approval') continue;
      if (row.status === 'waiting_approval' || def.type !== 'template') wakes.push(now + DECISION_RECHECK_MS);
      if (def.timeout_seconds && row.started) wakes.push(Date.parse(row.started) + def.timeout_seconds * 1000);
    }
    return new Date(Math.max(Math.min(...wakes), now)).toISOString();
  }

  private async finish(run: RunRow, status: 'success' | 'failed' | 'stopped'): Promise<void> {
    if (!(await this.d.repo.transition(run.id, ['running', 'stopping'], { status, ended: this.iso() }))) return;
    // The parent run's node follows this one: it looks now rather than at its next poll.
    if (run.parent_run_id) await this.d.repo.wake(run.parent_run_id, this.iso());
  }

  /** A running (or approval-waiting) node: what its task, approval or nested run says now. */
  private async follow(
    run: RunRow,
    def: WorkflowNode,
    row: RunNodeRow,
    tasks: RunTaskRow[],
    stopping: boolean,
  ): Promise<Partial<RunNodeRow> | null> {
    const timedOut =
      !!def.timeout_seconds &&
      !!row.started &&
      Date.parse(row.started) + def.timeout_seconds * 1000 <= this.d.clock.now().getTime();
    if (def.type === 'template') {
      const task = tasks.find((t) => t.workflow_node === def.id && t.workflow_attempt === row.attempts);
      // The lease holder that moved the node to this try died before its task was inserted: insert it now.
      if (!task) return stopping ? this.end(row, 'stopped', null) : this.launch(run, def, row, row.attempts, tasks);
      if (task.status === 'success') return this.end(row, 'success', null);
      if (taskFailed(task.status)) {
        if (stopping) return this.end(row, 'stopped', null);
        // Stopped by a user outside the run's own stop: the node stops, nothing retries it.
        if (task.status === 'stopped') return this.end(row, 'stopped', 'the task was stopped');
        return this.fail(def, row, null);
      }
      if (stopping || timedOut) {
        if (task.status !== 'stopping')
          await this.d.tasks
            .stop(run.project_id, task.id, false)
            .catch((e: unknown) => this.d.log(`workflow run ${run.id}: ${(e as Error).message}`));
        if (stopping) return null;
        return this.fail(def, row, `timed out after ${def.timeout_seconds} s`);
      }
      const waiting = task.status === 'waiting_approval' ? 'waiting_approval' : 'running';
      return waiting !== row.status && (await this.d.repo.updateNode(row, { status: waiting }))
        ? { status: waiting }
        : null;
    }
    if (def.type === 'approval') {
      if (row.approval_id === null)
        return stopping ? this.end(row, 'stopped', null) : this.launch(run, def, row, row.attempts, tasks);
      if (stopping) {
        await this.approvals.cancel(row.approval_id);
        return this.end(row, 'stopped', null);
      }
      const state = await this.approvals.state(row.approval_id);
      if (state === 'approved') return this.end(row, 'success', null);
      // A decision, not a flaky step: a rejection (or a timeout meaning one) is not retried.
      if (state === 'rejected') return this.end(row, 'failed', WORKFLOW_NODE_APPROVAL_ERRORS.rejected);
      if (state === 'timed_out') return this.end(row, 'failed', WORKFLOW_NODE_APPROVAL_ERRORS.timedOut);
      return null;
    }
    if (row.child_run_id === null)
      return stopping ? this.end(row, 'stopped', null) : this.launch(run, def, row, row.attempts, tasks);
    const child = await this.d.repo.findById(row.child_run_id);
    if (!child) return this.end(row, 'failed', 'the nested run is gone');
    if (child.status === 'success') return this.end(row, 'success', null);
    if (child.status === 'failed')
      return stopping ? this.end(row, 'stopped', null) : this.fail(def, row, `nested run #${child.id} failed`);
    if (child.status === 'stopped')
      return this.end(row, 'stopped', stopping ? null : `nested run #${child.id} was stopped`);
    if (stopping || timedOut) {
      if (await this.d.repo.transition(child.id, ['running'], { status: 'stopping', due_at: this.iso() }))
        this.d.log(`workflow run ${child.id}: stopping`);
      if (stopping) return null;
      return this.fail(def, row, `timed out after ${def.timeout_seconds} s`);
    }
    return null;
  }

  private async end(
    row: RunNodeRow,
    status: WorkflowNodeStatus,
    error: string | null,
  ): Promise<Partial<RunNodeRow> | null> {
    const values = { status, ended: this.iso(), error, next_try_at: null };
    return (await this.d.repo.updateNode(row, values)) ? values : null;
  }

  /** A failed try: another after the node's delay, doubled per try, while its retry budget lasts. */
  private async fail(def: WorkflowNode, row: RunNodeRow, error: string | null): Promise<Partial<RunNodeRow> | null> {
    if (row.tries <= def.retries) {
      const delay = def.retry_delay_seconds * 1000 * 2 ** Math.max(0, row.tries - 1);
      const values = { status: 'retry_wait', next_try_at: this.iso(delay), error };
      return (await this.d.repo.updateNode(row, values)) ? values : null;
    }
    return this.end(row, 'failed', error);
  }

  /** Moves the node to its next try, then launches it (a lost race leaves the node to the winner). */
  private async startTry(
    run: RunRow,
    def: WorkflowNode,
    row: RunNodeRow,
    rows: Map<string, RunNodeRow>,
    tasks: RunTaskRow[],
  ): Promise<Partial<RunNodeRow> | null> {
    const attempt = row.attempts + 1;
    const values = {
      status: 'running',
      attempts: attempt,
      tries: row.tries + 1,
      started: this.iso(),
      ended: null,
      next_try_at: null,
      error: null,
      approval_id: null,
      child_run_id: null,
    };
    if (!(await this.d.repo.updateNode(row, values))) return null;
    const moved = { ...row, ...values };
    const launched = await this.launch(run, def, moved, attempt, tasks, rows);
    return { ...values, ...launched };
  }

  /**
   * Starts a try's work: the template's task, the approval, or the nested run. Each is keyed by
   * (run, node, attempt), so launching twice finds the first one.
   */
  private async launch(
    run: RunRow,
    def: WorkflowNode,
    row: RunNodeRow,
    attempt: number,
    tasks: RunTaskRow[],
    rows?: Map<string, RunNodeRow>,
  ): Promise<Partial<RunNodeRow> | null> {
    try {
      if (def.type === 'template') {
        await this.createTask(run, def, attempt, tasks, rows);
        return null;
      }
      if (def.type === 'approval') {
        const approvalId = await this.approvals.openForNode({
          projectId: run.project_id,
          runId: run.id,
          workflowId: run.workflow_id,
          nodeId: def.id,
          attempt,
          requesterId: run.user_id,
          title: `${run.workflow_name}: ${def.id}`,
          spec: {
            approvers: def.approvers ?? { users: [], roles: [], groups: [] },
            required_approvals: def.required_approvals ?? 1,
            allow_self_approval: def.allow_self_approval,
            timeout_seconds: def.timeout_seconds ?? null,
            on_timeout: def.on_timeout,
          },
        });
        const values = { approval_id: approvalId, status: 'waiting_approval' };
        return (await this.d.repo.updateNode(row, values)) ? values : null;
      }
      const childId = await this.d.startChild(run, def, attempt);
      const values = { child_run_id: childId };
      return (await this.d.repo.updateNode(row, values)) ? values : null;
    } catch (e) {
      // The try could not start (its template or nested workflow is gone, its input refused): it failed.
      return this.fail(def, row, (e as Error).message.slice(0, 1000));
    }
  }

  private async createTask(
    run: RunRow,
    def: WorkflowNode,
    attempt: number,
    tasks: RunTaskRow[],
    rows?: Map<string, RunNodeRow>,
  ): Promise<void> {
    const p = def.params ?? {};
    // An integration's delivery gave the run values: each node's task gets them as the integration's own task would.
    const given = run.start_values
      ? (JSON.parse(run.start_values) as { vars: Record<string, unknown>; env: Record<string, string> })
      : null;
    const input = taskCreateSchema.parse({
      template_id: def.template_id,
      message: `Workflow ${run.workflow_name} run #${run.id}: ${def.id} (try ${attempt})`,
      environment: JSON.stringify({ ...(p.environment ?? {}), ...(given?.vars ?? {}) }),
      git_branch: p.git_branch ?? null,
      inventory_id: p.inventory_id ?? null,
      ...(p.limit ? { limit: p.limit } : {}),
    });
    // Earlier nodes' outputs, as data: every node of the run that succeeded and left an object, in the graph's order.
    const inputs: Record<string, unknown> = {};
    const states = rows ?? new Map((await this.d.repo.nodes(run.id)).map((n) => [n.node_id, n]));
    for (const { id } of (JSON.parse(run.graph) as WorkflowGraph).nodes) {
      const r = states.get(id);
      if (r?.status !== 'success') continue;
      const out = tasks.find((t) => t.workflow_node === id && t.workflow_attempt === r.attempts)?.output;
      if (out) inputs[id] = JSON.parse(out) as unknown;
    }
    const origin: TaskOrigin & { inputs?: Record<string, unknown> } = {
      scheduleId: run.schedule_id ?? undefined,
      workflow: { runId: run.id, node: def.id, attempt },
      ...(given ? { integrationId: run.integration_id ?? undefined, env: given.env } : {}),
      ...(p.environment_id ? { environmentId: p.environment_id } : {}),
      ...(Object.keys(inputs).length ? { inputs } : {}),
    };
    try {
      await this.d.tasks.create(await this.d.actorFor(run.project_id, run.user_id), run.project_id, input, origin);
    } catch (e) {
      // Another node inserted this try's task first (the unique key refused ours): it is the try's task.
      if (await this.d.repo.taskFor(run.id, def.id, attempt)) return;
      throw e;
    }
  }
}
