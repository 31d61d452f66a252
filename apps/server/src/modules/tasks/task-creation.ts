import {
  taskParamsSchema,
  templateTaskParamsSchema,
  type ProjectRole,
  type Template,
  type TaskParams,
  type taskCreateSchema,
  ErrorCodes,
} from '@gantry/contracts';
import type { z } from 'zod';
import type { Clock } from '../../platform/clock.js';
import type { SecretBox } from '../../platform/crypto.js';
import { ValidationError } from '../../platform/errors.js';
import type { Actor } from '../../platform/resource-routes.js';
import type { InventoriesService } from '../inventories/inventories.service.js';
import type { TemplatesService } from '../templates/templates.service.js';
import { presentTemplate } from '../templates/templates.presenter.js';
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
import type { NewTask, TasksRepository } from './tasks.repository.js';
import { typedSurveyAnswers, type DynamicOptionCheck } from './survey-answers.js';

export type TaskInput = z.output<typeof taskCreateSchema>;
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

/** The checks other modules wire into `TasksService` after it is built (see its properties of these names). */
export interface TaskCreationHooks {
  checkDynamicOption:
    ((projectId: number, template: Template, inventoryId: number | null | undefined) => DynamicOptionCheck) | undefined;
  checkParams: (template: Template, params: TaskParams) => void;
  driftInventory: (projectId: number, template: Template, given: number) => Promise<number>;
}

/** What preparing a task reads: the service's collaborators and its wired-in checks. */
export interface TaskCreationDeps {
  repo: TasksRepository;
  templates: TemplatesService;
  inventories: InventoriesService;
  apps: AppLookup;
  groups: VariableGroupLookup;
  box: SecretBox;
  clock: Clock;
  /** The service itself: each check is read when it is used, so one wired in after construction applies. */
  hooks: TaskCreationHooks;
}

/**
 * Checks a task start against its template and builds the row to insert (answers typed, secrets
 * sealed, run-time choices resolved); throws a ValidationError for input the template refuses.
 */
export async function prepareTask(
  deps: TaskCreationDeps,
  actor: TaskActor | null,
  projectId: number,
  input: TaskInput,
  origin: TaskOrigin,
): Promise<{ template: Template; values: NewTask }> {
  const template = presentTemplate(
    await deps.templates.getForTask(projectId, input.template_id).catch(() => {
      throw new ValidationError('Template not found in this project', {
        code: ErrorCodes.notInProject,
        label_key: 'template',
        field: 'template_id',
      });
    }),
  );
  const app = await deps.apps.find(template.app);
  if (!app) throw new ValidationError('App not found', { code: ErrorCodes.appNotFound });
  if (!app.active)
    throw new ValidationError(`App ${app.title} is not active`, { code: ErrorCodes.appInactive, app: app.title });
  // Answers are checked and stored typed (defaults filled in, "5" as 5, "true" as true).
  const { environment: answers, secret: secretAnswers } = await typedSurveyAnswers(
    template.survey_vars,
    parseJsonObject(input.environment, 'Environment', 'environment'),
    parseJsonObject(input.secret, 'Secret', 'secret'),
    { checkDynamicOption: deps.hooks.checkDynamicOption?.(projectId, template, input.inventory_id) },
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
    (await chosenGroup(projectId, template, tp, input.environment_id, (p, id) => deps.groups.envNames(p, id)));
  // Nor may it replace what the variable groups set (a proxy, an endpoint, a token...).
  const groupEnv = new Set<string>();
  for (const groupId of chosenGroupId ? [chosenGroupId] : template.environment_ids) {
    const names = await deps.groups.envNames(projectId, groupId).catch(() => {
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

  const { version, buildTaskId } = await taskVersion(deps.repo, projectId, template, input, origin);
  const params = allowedParams(
    taskParamsSchema.parse(foldTopLevelOptions(input, template.playbook)),
    tp,
    limitField(input),
  );
  deps.hooks.checkParams(template, params);
  const inventoryId =
    params.drift_check && input.inventory_id
      ? await deps.hooks.driftInventory(projectId, template, input.inventory_id)
      : await chosenInventory(projectId, tp, input.inventory_id, (p, id) => deps.inventories.get(p, id));
  if (input.commit_hash && !/^[0-9a-f]{4,64}$/i.test(input.commit_hash))
    throw new ValidationError('Commit hash must be hexadecimal', {
      code: ErrorCodes.commitHashInvalid,
      field: 'commit_hash',
    });

  const values: NewTask = {
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
    secret: Object.keys(secretAnswers).length ? deps.box.seal(JSON.stringify(secretAnswers)) : null,
    params: JSON.stringify(params),
    git_branch: chosenBranch(template, tp, input.git_branch),
    inventory_id: inventoryId,
    arguments: template.allow_override_args_in_task
      ? checkArguments(input.arguments, template.app, mayOverrideArgs)
      : null,
    created: deps.clock.now().toISOString(),
    env: origin.env && Object.keys(origin.env).length ? JSON.stringify(origin.env) : null,
    environment_id: chosenGroupId,
    workflow_run_id: origin.workflow?.runId ?? null,
    workflow_node: origin.workflow?.node ?? null,
    workflow_attempt: origin.workflow?.attempt ?? null,
    inputs: origin.inputs ? JSON.stringify(origin.inputs) : null,
  };
  return { template, values };
}

/** A build's version (given, else the next after the last); a deploy's, with the build it deploys; none for others. */
async function taskVersion(
  repo: TasksRepository,
  projectId: number,
  template: Template,
  input: TaskInput,
  origin: TaskOrigin,
): Promise<{ version: string | null; buildTaskId: number | null }> {
  let version: string | null = null;
  let buildTaskId: number | null = null;
  if (template.type === 'build') {
    version =
      input.version || nextVersion((await repo.lastVersioned(projectId, template.id))?.version, template.start_version);
  } else if (template.type === 'deploy') {
    // A workflow's deploy node deploys the build its run made (else the newest good one).
    const buildId =
      input.build_task_id ||
      (origin.workflow && template.build_template_id
        ? await repo.buildForRun(projectId, template.build_template_id, origin.workflow.runId)
        : null);
    if (!buildId)
      throw new ValidationError('Build version is required', {
        code: ErrorCodes.fieldRequired,
        label_key: 'build_version',
        field: 'build_task_id',
      });
    const build = await repo.find(projectId, buildId);
    if (!build || build.template_id !== template.build_template_id || build.status !== 'success') {
      throw new ValidationError('Build version must be a successful build of the build template', {
        code: ErrorCodes.buildVersionInvalid,
        field: 'build_task_id',
      });
    }
    buildTaskId = build.id;
    version = build.version;
  }
  return { version, buildTaskId };
}

/** Where a task's limit came from, as `foldTopLevelOptions` picks it: `params.limit`, else Semaphore's top-level `limit`. */
function limitField(input: TaskInput): string {
  return input.params.limit === undefined && input.limit?.trim() ? 'limit' : 'params.limit';
}
