import {
  FINISHED_STATUSES,
  STOPPABLE_STATUSES,
  isFinished,
  type ActiveTask,
  type TaskResult,
  type Template,
  type Task,
  type TaskParams,
  ErrorCodes,
} from '@gantry/contracts';
import type { Clock } from '../../platform/clock.js';
import { noAudit, type AuditRecorder } from '../audit/audit.port.js';
import type { SecretBox } from '../../platform/crypto.js';
import { ConflictError, NotFoundError } from '../../platform/errors.js';
import type { Actor } from '../../platform/resource-routes.js';
import type { EventBus } from '../../realtime/bus.js';
import { noTaskApprovals, type TaskApprovals } from '../approvals/task-approvals.port.js';
import type { EventsService } from '../events/events.service.js';
import type { InventoriesService } from '../inventories/inventories.service.js';
import type { TemplatesService } from '../templates/templates.service.js';
import { taskUpdateFrame, type FrameSource } from '../../realtime/task-frames.js';
import { NodeTaskFailures } from './node-task-failures.js';
import { taskResult } from './task-result.js';
import {
  prepareTask,
  type AppLookup,
  type TaskActor,
  type TaskCreationDeps,
  type TaskInput,
  type TaskOrigin,
  type VariableGroupLookup,
} from './task-creation.js';
import type { TaskRow, TasksRepository, TaskWithNames } from './tasks.repository.js';
import type { DynamicOptionCheck } from './survey-answers.js';

export type { AppLookup, TaskActor, TaskInput, TaskOrigin, VariableGroupLookup } from './task-creation.js';

export class TasksService {
  constructor(
    private readonly repo: TasksRepository,
    private readonly templates: TemplatesService,
    private readonly inventories: InventoriesService,
    private readonly box: SecretBox,
    private readonly bus: EventBus,
    private readonly events: EventsService,
    private readonly clock: Clock,
    private readonly nodeId: string,
    private readonly apps: AppLookup,
    private readonly groups: VariableGroupLookup,
  ) {
    // The service itself stands for the wired-in checks and listener: set after construction, they are read when used.
    this.creation = {
      repo: this.repo,
      templates: this.templates,
      inventories: this.inventories,
      apps: this.apps,
      groups: this.groups,
      box: this.box,
      clock: this.clock,
      hooks: this,
    };
    this.failures = new NodeTaskFailures(
      {
        repo: this.repo,
        events: this.events,
        clock: this.clock,
        publish: (task) => this.publish(task),
        endedOutsideRun: (task) => this.endedOutsideRun(task),
      },
      this.nodeId,
    );
  }

  /** What `create` checks and builds a task with (task-creation.ts). */
  private readonly creation: TaskCreationDeps;
  /** Fails the tasks of this node and of dead ones that no run can finish (node-task-failures.ts). */
  private readonly failures: NodeTaskFailures;

  /**
   * Told of tasks that end without a run to report them: stopped while still queued, or failed
   * because the server restarted under them (notifications hear of these too).
   */
  endedOutsideRun: (task: { id: number; status: string }) => void = () => undefined;

  /** Told of every stop of a started task once it is stored: a remote runner's task may end here (the runner may be gone). */
  stopRequested: (id: number, force: boolean) => Promise<void> = async () => undefined;

  /** Where task starts, stops, confirmations and rejections are recorded (the composition root wires the audit trail in). */
  audit: AuditRecorder = noAudit;

  /**
   * Checks answers of parameters whose options come from a source against the live options, for
   * one task start (its project, template and chosen inventory: an inventory's hosts depend on
   * them). The dynamic-options module wires it in; unset, such answers are accepted as data.
   */
  checkDynamicOption:
    | ((projectId: number, template: Template, inventoryId: number | null | undefined) => DynamicOptionCheck)
    | undefined = undefined;

  /** Opens and ends the approvals tasks of templates with an approval policy wait for (the approvals module). */
  approvals: TaskApprovals = noTaskApprovals;

  /** Checks a new task's params against its template (terraform-plans: a drift check needs a Terraform/OpenTofu template). */
  checkParams: (template: Template, params: TaskParams) => void = () => undefined;

  /**
   * The workspace a drift check (params.drift_check) asked for, checked to be one of its template's
   * (terraform-plans); null: the template's own. Used instead of the run-time inventory choice.
   */
  driftInventory: (projectId: number, template: Template, given: number) => Promise<number> = () =>
    Promise.reject(new Error('Drift checks are not wired'));

  /** Before a confirm: may this caller confirm this task's plan? Throws when not (terraform-plans: a policy's role). */
  confirmGuard: (projectId: number, taskId: number, actor: TaskActor | null) => Promise<void> = async () => undefined;

  /** After a confirm is stored: who confirmed (terraform-plans records it beside the plan). */
  onConfirmed: (projectId: number, taskId: number, actor: TaskActor | null) => Promise<void> = async () => undefined;

  /**
   * Fields a single task's answer carries beside the row's, by its template's app (terraform-plans:
   * plan_summary and plan_confirmation of Terraform/OpenTofu tasks; others keep Semaphore's shape).
   */
  taskExtras: (projectId: number, taskId: number, app: string) => Promise<Partial<Task>> = async () => ({});

  /** Queues a task in `waiting`; the dispatcher starts it as soon as a slot is free. */
  async create(
    actor: TaskActor | null,
    projectId: number,
    input: TaskInput,
    origin: TaskOrigin = {},
  ): Promise<TaskWithNames> {
    const { template, values } = await prepareTask(this.creation, actor, projectId, input, origin);
    const row = await this.repo.insert(values);
    // The activity event and the audit entry do not depend on each other: on PostgreSQL they go
    // out on two connections at once, one round trip and one commit less on the start's path.
    await Promise.all([
      this.events.record({
        projectId,
        userId: actor?.id ?? null,
        objectType: 'task',
        objectId: row.id,
        description: `Task #${row.id} of ${template.name} queued`,
      }),
      this.audit.record({
        action: 'task_start',
        objectType: 'task',
        objectId: row.id,
        projectId,
        after: {
          template_id: template.id,
          template: template.name,
          message: row.message,
          commit_hash: row.commit_hash,
          git_branch: row.git_branch,
          schedule_id: origin.scheduleId ?? null,
        },
      }),
    ]);
    if (row.status === 'waiting_approval') {
      try {
        await this.approvals.openForTask(row, template);
      } catch (e) {
        // A task no approval can release must not wait for ever.
        await this.repo.transition(row.id, ['waiting_approval'], 'error', { end: this.clock.now().toISOString() });
        throw e;
      }
    }
    this.bus.publish(taskUpdateFrame(row));
    this.bus.kick();
    return (await this.repo.find(projectId, row.id))!;
  }

  async get(projectId: number, id: number): Promise<TaskWithNames> {
    const row = await this.repo.find(projectId, id);
    if (!row) throw new NotFoundError('Task not found', { code: ErrorCodes.taskNotFound });
    return row;
  }

  /** The object the task left (GANTRY_OUTPUT) and the outputs it was given; null for either it has none of. */
  async result(projectId: number, id: number): Promise<TaskResult> {
    const row = await this.repo.result(projectId, id);
    if (!row) throw new NotFoundError('Task not found', { code: ErrorCodes.taskNotFound });
    return taskResult(row);
  }

  last(
    projectId: number,
    limit: number,
    templateId?: number,
    status?: string,
    host?: string,
  ): Promise<TaskWithNames[]> {
    return this.repo.last(projectId, Math.min(Math.max(limit, 1), 1000), templateId, status, host);
  }

  /** Deletes a finished task and its log (Semaphore's DELETE /project/{id}/tasks/{task_id}). */
  async delete(actor: Actor, projectId: number, id: number): Promise<void> {
    const task = await this.get(projectId, id);
    if (!(await this.repo.deleteIn(projectId, id, FINISHED_STATUSES)))
      throw new ConflictError('Stop the task before deleting it', { code: ErrorCodes.taskNotFinished });
    await this.events.record({
      projectId,
      userId: actor.id,
      objectType: 'task',
      objectId: id,
      description: `Task #${id} of ${task.tpl_name ?? 'a deleted template'} deleted`,
    });
    await this.audit.record({
      action: 'delete',
      objectType: 'task',
      objectId: id,
      projectId,
      before: { template_id: task.template_id, status: task.status },
    });
  }

  /**
   * Stop: a waiting task ends at once; a running one goes to `stopping` and its process group
   * gets SIGTERM; `force` (offered in stopping) sends SIGKILL. A task that has already ended is
   * left as it is, without an error (as Semaphore: the caller may be a poll behind).
   */
  async stop(projectId: number, id: number, force: boolean): Promise<void> {
    const task = await this.get(projectId, id);
    if (isFinished(task.status) || !STOPPABLE_STATUSES.includes(task.status as never)) return;
    await this.audit.record({
      action: 'task_stop',
      objectType: 'task',
      objectId: id,
      projectId,
      before: { status: task.status },
      after: { force },
    });
    const now = this.clock.now().toISOString();
    if (await this.repo.transition(id, ['waiting', 'waiting_approval'], 'stopped', { end: now })) {
      this.publish({ ...task, status: 'stopped', end: now });
      // Stopped while it waited for approval: the approval ends with it.
      if (task.status === 'waiting_approval') await this.approvals.cancelForTask(id);
      await this.events.record({
        projectId,
        userId: task.user_id,
        objectType: 'task',
        objectId: id,
        description: `Task #${id} stopped before it started`,
      });
      this.endedOutsideRun({ id, status: 'stopped' });
      return;
    }
    if (await this.repo.transition(id, ['starting', 'running', 'confirmed', 'waiting_confirmation'], 'stopping'))
      this.publish({ ...task, status: 'stopping' });
    // Stored before anyone is told: a remote runner reads it when it polls, another node when the bus wakes it.
    if (force) await this.repo.update(id, { stop_force: 1 });
    this.bus.control({ taskId: id, action: force ? 'kill' : 'stop' });
    await this.stopRequested(id, force);
  }

  /** Stops every waiting and running task of a template (Semaphore's `stop_all_tasks`). */
  async stopAll(projectId: number, templateId: number, force: boolean): Promise<void> {
    await this.templates.get(projectId, templateId);
    for (const id of await this.repo.unfinishedOfTemplate(projectId, templateId)) await this.stop(projectId, id, force);
  }

  async confirm(projectId: number, id: number, actor: TaskActor | null = null): Promise<void> {
    const task = await this.get(projectId, id);
    await this.confirmGuard(projectId, id, actor);
    if (!(await this.repo.transition(id, ['waiting_confirmation'], 'confirmed')))
      throw new ConflictError('The task is not waiting for confirmation', { code: ErrorCodes.taskNotWaiting });
    await this.onConfirmed(projectId, id, actor);
    this.publish({ ...task, status: 'confirmed' });
    await this.audit.record({
      action: 'task_confirm',
      objectType: 'task',
      objectId: id,
      projectId,
      before: { status: task.status },
      after: { status: 'confirmed' },
    });
    this.bus.control({ taskId: id, action: 'confirm' });
  }

  async reject(projectId: number, id: number): Promise<void> {
    const task = await this.get(projectId, id);
    const end = this.clock.now().toISOString();
    if (!(await this.repo.transition(id, ['waiting_confirmation'], 'rejected', { end }))) {
      throw new ConflictError('The task is not waiting for confirmation', { code: ErrorCodes.taskNotWaiting });
    }
    this.publish({ ...task, status: 'rejected', end });
    await this.audit.record({
      action: 'task_reject',
      objectType: 'task',
      objectId: id,
      projectId,
      before: { status: task.status },
      after: { status: 'rejected' },
    });
    this.bus.control({ taskId: id, action: 'reject' });
  }

  /** Active tasks across projects (admin page): where each one is. */
  async active(): Promise<ActiveTask[]> {
    const rows = await this.repo.active();
    return rows.map((r) => ({
      task_id: r.id,
      project_id: r.project_id,
      template_id: r.template_id,
      username: r.username ?? null,
      status: r.status as ActiveTask['status'],
      runner_id: r.runner_id,
      location: r.status === 'waiting' ? 'queue' : 'running',
      runner_name: r.runner_id ? (r.runner_name ?? `#${r.runner_id}`) : null,
    }));
  }

  /** One task of any project, by id (the admin's active tasks page). */
  async getAny(id: number): Promise<TaskWithNames> {
    const row = await this.repo.findAnyWithNames(id);
    if (!row) throw new NotFoundError('Task not found', { code: ErrorCodes.taskNotFound });
    return row;
  }

  /**
   * Stops a task of any project by id (admin), as Semaphore's `DELETE /api/tasks/{id}`: a task
   * that has already ended is left alone (the page may be a poll behind), not an error.
   */
  async stopAny(id: number): Promise<void> {
    const task = await this.getAny(id);
    await this.stop(task.project_id, id, false);
  }

  /** At start-up: what this node was running when it stopped cannot go on. */
  async failOrphans(): Promise<number> {
    return this.failures.failOrphans();
  }

  /** Another node stopped answering: its running tasks fail (guarded by status and owner, see NodeTaskFailures). */
  async failDeadNode(deadNodeId: string): Promise<number> {
    return this.failures.failDeadNode(deadNodeId);
  }

  /** This node's tasks the database holds as active: the orphan sweep compares them with the live runs. */
  activeOnThisNode(): Promise<Array<{ id: number; status: string }>> {
    return this.failures.activeOnThisNode();
  }

  /** The orphan sweep found these tasks of this node held by no live run (in two sweeps in a row): they fail. */
  async failUnheld(tasks: Array<{ id: number; status: string }>): Promise<number> {
    return this.failures.failUnheld(tasks);
  }

  /** After a run: log it, and start deploys that follow a successful build automatically. */
  async finished(task: TaskRow): Promise<void> {
    await this.events.record({
      projectId: task.project_id,
      userId: task.user_id,
      objectType: 'task',
      objectId: task.id,
      description: `Task #${task.id} finished: ${task.status}`,
    });
    if (task.status !== 'success') return;
    for (const deployId of await this.templates.autorunDeployIds(task.project_id, task.template_id)) {
      await this.create(null, task.project_id, {
        template_id: deployId,
        message: `Autorun after build #${task.id}`,
        build_task_id: task.id,
        environment: '{}',
        secret: '{}',
        params: {},
      }).catch(() => undefined);
    }
  }

  /** Its approval was granted: the task joins the queue (`waiting_approval` → `waiting`). */
  async approvalGranted(id: number): Promise<void> {
    if (!(await this.repo.transition(id, ['waiting_approval'], 'waiting'))) return;
    const row = await this.repo.findById(id);
    if (row) this.publish(row);
    this.bus.kick();
  }

  /** Its approval was refused (a rejection, or a timeout that rejects): the task ends `rejected`. */
  async approvalRefused(id: number, by: string): Promise<void> {
    const end = this.clock.now().toISOString();
    if (!(await this.repo.transition(id, ['waiting_approval'], 'rejected', { end }))) return;
    const row = await this.repo.findById(id);
    if (!row) return;
    this.publish(row);
    await this.events.record({
      projectId: row.project_id,
      userId: null,
      objectType: 'task',
      objectId: id,
      description: `Task #${id} was not approved (${by}); it will not run`,
    });
  }

  private publish(task: FrameSource): void {
    this.bus.publish(taskUpdateFrame(task));
  }
}
