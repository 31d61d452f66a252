import { z } from 'zod';

/**
 * A run of a workflow: created by a start (console, API, CLI, schedule, integration), driven
 * through the database by whichever server node holds its lease, so a restart or a dead node
 * never loses or doubles a step.
 */
export const WORKFLOW_RUN_STATUSES = ['running', 'success', 'failed', 'stopping', 'stopped'] as const;
export type WorkflowRunStatus = (typeof WORKFLOW_RUN_STATUSES)[number];
export const WORKFLOW_RUN_FINISHED: readonly WorkflowRunStatus[] = ['success', 'failed', 'stopped'];

/**
 * A node's state in a run. `pending`: not reached yet; `retry_wait`: failed, its next try is due
 * at `next_try_at`; `skipped`: no edge into it can fire any more (and nothing after it runs
 * through it); `waiting_approval`: an approval node (or a template node whose template needs
 * approval) waits for its approvers.
 */
export const WORKFLOW_NODE_STATUSES = [
  'pending',
  'running',
  'retry_wait',
  'waiting_approval',
  'success',
  'failed',
  'skipped',
  'stopped',
] as const;
export type WorkflowNodeStatus = (typeof WORKFLOW_NODE_STATUSES)[number];

/** The largest JSON object a task may leave in the file named by `GANTRY_OUTPUT`. */
export const TASK_OUTPUT_MAX_BYTES = 1024 * 1024;
/** The extra variable (Ansible) that carries earlier nodes' outputs, as `{nodeId: output}`. */
export const WORKFLOW_INPUTS_VAR = 'gantry_outputs';
/** The environment variable (scripts) that carries the same object as JSON. */
export const WORKFLOW_INPUTS_ENV = 'GANTRY_OUTPUTS';
/** The environment variable naming the file a task may write its output object to. */
export const TASK_OUTPUT_ENV = 'GANTRY_OUTPUT';

/**
 * The `error` a node's approval leaves when it ends it: rejected by an approver (or canceled), or
 * nobody decided before its deadline and its timeout meant reject. The console translates these.
 */
export const WORKFLOW_NODE_APPROVAL_ERRORS = { rejected: 'rejected', timedOut: 'approval timed out' } as const;

export const workflowRunNodeSchema = z.object({
  id: z.string(),
  type: z.enum(['template', 'approval', 'workflow']),
  status: z.enum(WORKFLOW_NODE_STATUSES),
  /** Tries so far, over every resume (the task of try N is the Nth of task_ids). */
  attempts: z.number().int(),
  task_ids: z.array(z.number().int()),
  /** The approval this node waits for (approval nodes, and template nodes whose template needs approval). */
  approval_id: z.number().int().nullable(),
  /** The run of a nested workflow node. */
  child_run_id: z.number().int().nullable(),
  /** The workflow of that nested run (its page lives under it). */
  child_workflow_id: z.number().int().nullable().optional(),
  /** When a node in `retry_wait` tries again. */
  next_try_at: z.string().nullable(),
  /** Why the node failed when no task says it (a timeout, an output too large, a rejected approval). */
  error: z.string().nullable(),
  /** Names of the keys of the node's output object (the values are in the task's output). */
  output_keys: z.array(z.string()),
  started: z.string().nullable(),
  ended: z.string().nullable(),
});
export type WorkflowRunNode = z.output<typeof workflowRunNodeSchema>;

export const workflowRunSchema = z.object({
  id: z.number().int(),
  project_id: z.number().int(),
  workflow_id: z.number().int(),
  workflow_name: z.string(),
  status: z.enum(WORKFLOW_RUN_STATUSES),
  user_id: z.number().int().nullable(),
  /** The run whose nested-workflow node started this one. */
  parent_run_id: z.number().int().nullable(),
  schedule_id: z.number().int().nullable(),
  integration_id: z.number().int().nullable(),
  created: z.string(),
  ended: z.string().nullable(),
  nodes: z.array(workflowRunNodeSchema),
});
export type WorkflowRun = z.output<typeof workflowRunSchema>;

/** A run in a list: without its nodes. */
export type WorkflowRunSummary = Omit<WorkflowRun, 'nodes'>;
