import {
  ACTIVE_STATUSES,
  FINISHED_STATUSES,
  STOPPABLE_STATUSES,
  isFinished,
  taskParamsSchema,
  templateTaskParamsSchema,
  type ActiveTask,
  type TaskResult,
  type ProjectRole,
  type Template,
  type Task,
  type TaskParams,
  type taskCreateSchema,
  ErrorCodes,
} from '@gantry/contracts';
import type { z } from 'zod';
import type { Clock } from '../../platform/clock.js';
import { noAudit, type AuditRecorder } from '../audit/audit.port.js';
import type { SecretBox } from '../../platform/crypto.js';
import { ConflictError, NotFoundError, ValidationError } from '../../platform/errors.js';
import type { Actor } from '../../platform/resource-routes.js';
import type { EventBus } from '../../realtime/bus.js';
import { noTaskApprovals, type TaskApprovals } from '../approvals/task-approvals.port.js';
import type { EventsService } from '../events/events.service.js';
import type { InventoriesService } from '../inventories/inventories.service.js';
import type { TemplatesService } from '../templates/templates.service.js';
import { presentTemplate } from '../templates/templates.presenter.js';
import { taskUpdateFrame, type FrameSource } from '../../realtime/task-frames.js';
import {
  allowedParams,
  checkArguments,
  checkGroupEnvKept,
  checkTaskEnvNames,
  checkTaskVariables,
  foldTopLevelOptions,
  nextVersion,
  parseJsonObject,
} from './task-input.js';
import { chosenBranch, chosenGroup, chosenInventory } from './run-choices.js';
import type { TaskRow, TasksRepository, TaskWithNames } from './tasks.repository.js';
import { typedSurveyAnswers, type DynamicOptionCheck } from './survey-answers.js';

export type TaskInput = z.output<typeof taskCreateSchema>;
/** Every status of a task a node holds in a run (claimed and not yet final). */
const NODE_ACTIVE = ['starting', 'running', 'stopping', ...ACTIVE_STATUSES];
/** Who starts a task: a user with their role in the project (argument overrides need manager or higher). */
export interface TaskActor extends Actor {
  role?: ProjectRole | null;
}
export interface TaskOrigin {
  integrationId?: number;
  scheduleId?: number;
  /** Another variable group of the project to run with than the template's (a workflow node's override). */
  environmentId?: number;
  /** Environment variables for the run on top of the variable group's (an integration's extracted values). */

  env?: Record<string, string>;
  /** The workflow run, node and try this task is (stored on the task; unique: a try's task is inserted once). */
  workflow?: { runId: number; node: string; attempt: number };
  /** Outputs of earlier workflow nodes, `{nodeId: output}`, given to the run as data (stored as task.inputs). */
  inputs?: Record<string, unknown>;
}

/** What task creation needs to know of apps (the apps module). */
export interface AppLookup {
  find(id: string): Promise<{ title: string; active: boolean } | null>;
}

/** What task creation needs to know of variable groups (the environments module). */
export interface VariableGroupLookup {
  /** The names of a group's environment variables, secret ones included. */
  envNames(projectId: number, id: number): Promise<string[]>;
}

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
  ) {}

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
    const template = presentTemplate(
      await this.templates.getForTask(projectId, input.template_id).catch(() => {
        throw new ValidationError('Template not found in this project', {
          code: ErrorCodes.notInProject,
          label_key: 'template',
          field: 'template_id',
        });
      }),
    );
    const app = await this.apps.find(template.app);
    if (!app) throw new ValidationError('App not found', { code: ErrorCodes.appNotFound });
    if (!app.active)
      throw new ValidationError(`App ${app.title} is not active`, { code: ErrorCodes.appInactive, app: app.title });
    // Answers are checked and stored typed (defaults filled in, "5" as 5, "true" as true).
    const { environment: answers, secret: secretAnswers } = await typedSurveyAnswers(
      template.survey_vars,
      parseJsonObject(input.environment, 'Environment', 'environment'),
      parseJsonObject(input.secret, 'Secret', 'secret'),
      { checkDynamicOption: this.checkDynamicOption?.(projectId, template, input.inventory_id) },
    );
    // Task input is data: names that would steer Ansible or the process are refused, and a task
    // gives only survey answers unless the template allows free extra variables.
    const anyName = origin.integrationId !== undefined || template.allow_extra_vars_in_task;
    checkTaskVariables(Object.keys(answers), template.survey_vars, anyName, 'environment');
    checkTaskVariables(Object.keys(secretAnswers), template.survey_vars, anyName, 'secret');
    const envNames = Object.keys(origin.env ?? {});
    checkTaskEnvNames(envNames);
    const tp = templateTaskParamsSchema.parse(template.task_params);
    // A workflow node's group, else a run-time choice: either replaces the template's list.
    const chosenGroupId =
      origin.environmentId ??
      (await chosenGroup(projectId, template, tp, input.environment_id, (p, id) => this.groups.envNames(p, id)));
    // Nor may it replace what the variable groups set (a proxy, an endpoint, a token...).
    const groupEnv = new Set<string>();
    for (const groupId of chosenGroupId ? [chosenGroupId] : template.environment_ids) {
      const names = await this.groups.envNames(projectId, groupId).catch(() => {
        throw new ValidationError('Variable group not found in this project', {
          code: ErrorCodes.notInProject,
          label_key: 'variable_group',
          field: 'environment_id',
        });
      });
      for (const n of names) groupEnv.add(n);
    }
    checkGroupEnvKept(Object.keys(answers), groupEnv, template.app, 'environment');
    checkGroupEnvKept(Object.keys(secretAnswers), groupEnv, template.app, 'secret');
    checkGroupEnvKept(envNames, groupEnv, template.app, 'env', true);
    const mayOverrideArgs = !!actor && (actor.admin || actor.role === 'owner' || actor.role === 'manager');

    let version: string | null = null;
    let buildTaskId: number | null = null;
    if (template.type === 'build') {
      version =
        input.version ||
        nextVersion((await this.repo.lastVersioned(projectId, template.id))?.version, template.start_version);
    } else if (template.type === 'deploy') {
      // A workflow's deploy node deploys the build its run made (else the newest good one).
      const buildId =
        input.build_task_id ||
        (origin.workflow && template.build_template_id
          ? await this.repo.buildForRun(projectId, template.build_template_id, origin.workflow.runId)
          : null);
      if (!buildId)
        throw new ValidationError('Build version is required', {
          code: ErrorCodes.fieldRequired,
          label_key: 'build_version',
          field: 'build_task_id',
        });
      const build = await this.repo.find(projectId, buildId);
      if (!build || build.template_id !== template.build_template_id || build.status !== 'success') {
        throw new ValidationError('Build version must be a successful build of the build template', {
          code: ErrorCodes.buildVersionInvalid,
          field: 'build_task_id',
        });
      }
      buildTaskId = build.id;
      version = build.version;
    }
    const params = allowedParams(
      taskParamsSchema.parse(foldTopLevelOptions(input, template.playbook)),
      tp,
      limitField(input),
    );
    this.checkParams(template, params);
    const inventoryId =
      params.drift_check && input.inventory_id
        ? await this.driftInventory(projectId, template, input.inventory_id)
        : await chosenInventory(projectId, tp, input.inventory_id, (p, id) => this.inventories.get(p, id));
    if (input.commit_hash && !/^[0-9a-f]{4,64}$/i.test(input.commit_hash))
      throw new ValidationError('Commit hash must be hexadecimal', {
        code: ErrorCodes.commitHashInvalid,
        field: 'commit_hash',
      });

    const row = await this.repo.insert({
      project_id: projectId,
      template_id: template.id,
      // A template with an approval policy: the task waits, holding no queue slot, until approved.
      status: template.approval_policy ? 'waiting_approval' : 'waiting',
      message: input.message,
      commit_hash: input.commit_hash || null,
      commit_message: '',
      version,
      build_task_id: buildTaskId,
      user_id: actor?.id ?? null,
      integration_id: origin.integrationId ?? null,
      schedule_id: origin.scheduleId ?? null,
      environment: JSON.stringify(answers),
      secret: Object.keys(secretAnswers).length ? this.box.seal(JSON.stringify(secretAnswers)) : null,
      params: JSON.stringify(params),
      git_branch: chosenBranch(template, tp, input.git_branch),
      inventory_id: inventoryId,
      arguments: template.allow_override_args_in_task
        ? checkArguments(input.arguments, template.app, mayOverrideArgs)
        : null,
      created: this.clock.now().toISOString(),
      env: origin.env && Object.keys(origin.env).length ? JSON.stringify(origin.env) : null,
      environment_id: chosenGroupId,
      workflow_run_id: origin.workflow?.runId ?? null,
      workflow_node: origin.workflow?.node ?? null,
      workflow_attempt: origin.workflow?.attempt ?? null,
      inputs: origin.inputs ? JSON.stringify(origin.inputs) : null,
    });
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
    return { output: jsonObjectOrNull(row.output), inputs: jsonObjectOrNull(row.inputs) };
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
    return this.failNodeTasks(
      this.nodeId,
      'The server restarted while this task was running; the task was failed.',
      (id) => `Task #${id} failed: the server restarted while it ran`,
    );
  }

  /**
   * Another node stopped answering: its running tasks fail, each with a log line saying why.
   * Every write is guarded by the task's status and owner, so a node coming back late finds its
   * tasks final and changes nothing.
   */
  async failDeadNode(deadNodeId: string): Promise<number> {
    return this.failNodeTasks(
      deadNodeId,
      `Node ${deadNodeId} stopped answering; the task was failed.`,
      (id) => `Task #${id} failed: node ${deadNodeId} stopped answering`,
    );
  }

  /** This node's tasks the database holds as active: the orphan sweep compares them with the live runs. */
  activeOnThisNode(): Promise<Array<{ id: number; status: string }>> {
    return this.repo.orphans(this.nodeId, NODE_ACTIVE);
  }

  /**
   * The orphan sweep found these tasks of this node held by no live run (in two sweeps in a row):
   * they fail, each with a line saying why. Guarded by status and owner, as every node write is.
   */
  async failUnheld(tasks: Array<{ id: number; status: string }>): Promise<number> {
    const rows = await this.repo.orphans(this.nodeId, NODE_ACTIVE);
    const wanted = new Map(tasks.map((t) => [t.id, t.status]));
    return this.failTasks(
      this.nodeId,
      rows.filter((r) => wanted.get(r.id) === r.status),
      'This server holds no run of this task any more (it ended, or never started, without storing a final status); the task was failed.',
      (id) => `Task #${id} failed: no run of its server held it any more`,
    );
  }

  private async failNodeTasks(nodeId: string, line: string, description: (id: number) => string): Promise<number> {
    return this.failTasks(nodeId, await this.repo.orphans(nodeId, NODE_ACTIVE), line, description);
  }

  private async failTasks(
    nodeId: string,
    orphans: Array<{ id: number; project_id: number; status: string }>,
    line: string,
    description: (id: number) => string,
  ): Promise<number> {
    const now = this.clock.now().toISOString();
    let failed = 0;
    for (const t of orphans) {
      if (await this.repo.transition(t.id, [t.status], 'error', { end: now }, nodeId)) {
        failed += 1;
        await this.repo.appendOutput([
          { task_id: t.id, seq: (await this.repo.lastSeq(t.id)) + 1, time: now, output: line },
        ]);
        const row = await this.repo.findById(t.id);
        if (row) this.publish(row);
        await this.events.record({
          projectId: t.project_id,
          userId: null,
          objectType: 'task',
          objectId: t.id,
          description: description(t.id),
        });
        this.endedOutsideRun({ id: t.id, status: 'error' });
      }
    }
    return failed;
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

/** Where a task's limit came from, as `foldTopLevelOptions` picks it: `params.limit`, else Semaphore's top-level `limit`. */
function limitField(input: TaskInput): string {
  return input.params.limit === undefined && input.limit?.trim() ? 'limit' : 'params.limit';
}

/** A stored JSON object (task.output, task.inputs); null when there is none (or it is not one). */
function jsonObjectOrNull(text: string | null): Record<string, unknown> | null {
  if (!text) return null;
  try {
    const v: unknown = JSON.parse(text);
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
