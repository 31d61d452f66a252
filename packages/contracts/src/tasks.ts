import { z } from 'zod';
import { coded } from './coded.js';
import { ErrorCodes } from './errors.js';
import { DEBUG_LEVEL_DEFAULT, DEBUG_LEVEL_MAX, DEBUG_LEVEL_MIN } from './constants.js';
import { requiredMessage } from './fields.js';
import { driftCheckParamsSchema, planConfirmationSchema, planSummarySchema } from './terraform-plan.js';

export const TASK_STATUSES = [
  'waiting',
  'starting',
  'waiting_confirmation',
  'confirmed',
  'rejected',
  // Held until its template's approval policy is satisfied; holds no run slot (not in ACTIVE_STATUSES).
  'waiting_approval',
  'running',
  'success',
  'error',
  'stopping',
  'stopped',
] as const;
export const taskStatusSchema = z.enum(TASK_STATUSES);
export type TaskStatus = z.infer<typeof taskStatusSchema>;

/** Statuses after which nothing more happens to a task (the log view offers the raw log). */
export const FINISHED_STATUSES: readonly string[] = ['stopped', 'error', 'success', 'canceled', 'rejected'];
/** Statuses in which the Stop button is offered. */
export const STOPPABLE_STATUSES: readonly TaskStatus[] = [
  'running',
  'stopping',
  'waiting',
  'waiting_approval',
  'starting',
  'waiting_confirmation',
  'confirmed',
  'rejected',
];
/** Statuses that hold a run slot. */
export const ACTIVE_STATUSES: readonly TaskStatus[] = [
  'starting',
  'running',
  'stopping',
  'waiting_confirmation',
  'confirmed',
];

export function isFinished(status: string): boolean {
  return FINISHED_STATUSES.includes(status);
}

/** Run options a task may carry, per app (spec 02 §3 "Task params"). */
export const taskParamsSchema = z
  .object({
    debug: z.boolean().optional(),
    debug_level: z.number().int().min(DEBUG_LEVEL_MIN).max(DEBUG_LEVEL_MAX).optional(),
    dry_run: z.boolean().optional(),
    diff: z.boolean().optional(),
    plan: z.boolean().optional(),
    destroy: z.boolean().optional(),
    auto_approve: z.boolean().optional(),
    upgrade: z.boolean().optional(),
    reconfigure: z.boolean().optional(),
    limit: z.array(z.string()).optional(),
    tags: z.array(z.string()).optional(),
    skip_tags: z.array(z.string()).optional(),
    /** Terraform/OpenTofu: a drift check (plan with -detailed-exitcode, never applied) that records the workspace's drift. */
    drift_check: driftCheckParamsSchema.optional(),
  })
  .default({});
export type TaskParams = z.infer<typeof taskParamsSchema>;
export { DEBUG_LEVEL_DEFAULT };

/** The fields of a task of its own (Semaphore's `Task`): what `build_task` carries. */
export const taskCoreSchema = z.object({
  id: z.number().int(),
  template_id: z.number().int(),
  project_id: z.number().int(),
  status: taskStatusSchema,
  message: z.string(),
  commit_hash: z.string().nullable(),
  commit_message: z.string(),
  version: z.string().nullable(),
  build_task_id: z.number().int().nullable(),
  user_id: z.number().int().nullable(),
  user_name: z.string().nullable(),
  integration_id: z.number().int().nullable(),
  schedule_id: z.number().int().nullable(),
  environment: z.string(),
  params: taskParamsSchema,
  git_branch: z.string().nullable(),
  inventory_id: z.number().int().nullable(),
  /** The variable group chosen for this task (at run time or by a workflow node); null: the template's. */
  environment_id: z.number().int().nullable().optional(),
  arguments: z.string().nullable(),
  created: z.string(),
  start: z.string().nullable(),
  end: z.string().nullable(),
  runner_id: z.number().int().nullable().optional(),
  // Semaphore's console reads and re-sends these Ansible options at the top level of a task.
  debug: z.boolean(),
  dry_run: z.boolean(),
  diff: z.boolean(),
  /** `params.limit` joined with commas. */
  limit: z.string(),
  /** Semaphore's playbook override; always empty in Gantry (the template's playbook runs). */
  playbook: z.string(),
});
export type TaskCore = z.infer<typeof taskCoreSchema>;

/** A task row of the lists (Semaphore's `TaskWithTpl`): with its template's and user's names and its build task. */
export const taskSchema = taskCoreSchema.extend({
  tpl_playbook: z.string(),
  tpl_type: z.string(),
  tpl_alias: z.string(),
  tpl_app: z.string(),
  /** The build task a deploy task deploys (its version and message), or null. */
  build_task: taskCoreSchema.nullable(),
  /** The workflow run, node and try this task is (Gantry's own; null for a task started on its own). */
  workflow_run: z.object({ id: z.number().int(), workflow_id: z.number().int(), node: z.string(), attempt: z.number().int() }).nullable().optional(),
  /** A Terraform/OpenTofu task's saved plan in numbers and per resource (Gantry's own; in a single task's answer). */
  plan_summary: planSummarySchema.nullable().optional(),
  /** Who confirmed the plan and when (null until confirmed, or when it was auto-approved). */
  plan_confirmation: planConfirmationSchema.nullable().optional(),
});
export type Task = z.infer<typeof taskSchema>;

export const taskCreateSchema = z.object({
  template_id: z.coerce.number(requiredMessage('Template')).int().positive(requiredMessage('Template')),
  message: z.string().trim().max(2000).default(''),
  build_task_id: z.coerce.number().int().positive().nullish(),
  /** JSON object text of extra variables (survey answers and the like). */
  environment: z.string().default('{}'),
  /** JSON object text of secret survey answers; never stored in clear nor returned. */
  secret: z.string().default('{}'),
  params: taskParamsSchema,
  // Semaphore's console sends these at the top level; they fold into params (params win when both are given).
  debug: z.boolean().optional(),
  dry_run: z.boolean().optional(),
  diff: z.boolean().optional(),
  /** Comma-separated host patterns, as Semaphore's `limit`. */
  limit: z
    .string(coded('Limit must be a comma-separated string', ErrorCodes.mustBeString, { label_key: 'limit' }))
    .optional(),
  /** Semaphore's playbook override: only the template's own playbook (or empty) is accepted. */
  playbook: z.string(coded('Playbook must be a string', ErrorCodes.mustBeString, { label_key: 'playbook' })).optional(),
  arguments: z.string().nullish(),
  git_branch: z.string().trim().nullish(),
  inventory_id: z.coerce.number().int().positive().nullish(),
  /** A run-time choice of variable group (the template must allow it; see task_params.environment_choices). */
  environment_id: z.coerce.number().int().positive().nullish(),
  commit_hash: z.string().trim().nullish(),
  version: z.string().trim().nullish(),
});
export type TaskCreate = z.input<typeof taskCreateSchema>;

export const taskOutputSchema = z.object({
  task_id: z.number().int(),
  seq: z.number().int(),
  time: z.string(),
  output: z.string(),
});
export type TaskOutput = z.infer<typeof taskOutputSchema>;

/**
 * GET /project/{id}/tasks/{tid}/result: the JSON object the task left in the file named by
 * GANTRY_OUTPUT (null when none), and the outputs of earlier workflow nodes it was given as
 * `{nodeId: output}` (null when none).
 */
export const taskResultSchema = z.object({
  output: z.record(z.string(), z.unknown()).nullable(),
  inputs: z.record(z.string(), z.unknown()).nullable(),
});
export type TaskResult = z.infer<typeof taskResultSchema>;

export const taskStopSchema = z.object({ force: z.boolean().default(false) }).default({ force: false });

/** A row of the admin's active tasks page. */
export const activeTaskSchema = z.object({
  task_id: z.number().int(),
  project_id: z.number().int(),
  template_id: z.number().int(),
  username: z.string().nullable(),
  status: taskStatusSchema,
  runner_id: z.number().int().nullable(),
  /** Semaphore's words: `queue` (waiting) or `running` (here or on a runner). */
  location: z.enum(['queue', 'running']),
  /** The runner's name for a task on a remote runner, else null. */
  runner_name: z.string().nullable(),
});
export type ActiveTask = z.infer<typeof activeTaskSchema>;
