import { z } from 'zod';
import { coded, codedIssue } from './coded.js';
import { ErrorCodes } from './errors.js';
import { DESCRIPTION_MAX, requiredMessage, requiredName } from './fields.js';
import { PROJECT_ROLES } from './permissions.js';

/** What a workflow node runs: a template's task, an approval gate, or another workflow. */
export const WORKFLOW_NODE_TYPES = ['template', 'approval', 'workflow'] as const;
export type WorkflowNodeType = (typeof WORKFLOW_NODE_TYPES)[number];
/** When an edge fires: its source node succeeded, failed, or either. */
export const WORKFLOW_EDGE_CONDITIONS = ['success', 'failure', 'always'] as const;
export type WorkflowEdgeCondition = (typeof WORKFLOW_EDGE_CONDITIONS)[number];
/** How a node with several incoming edges waits: for every one that can fire, or the first. */
export const WORKFLOW_JOINS = ['all', 'any'] as const;
export type WorkflowJoin = (typeof WORKFLOW_JOINS)[number];

export const WORKFLOW_MAX_NODES = 200;
export const WORKFLOW_MAX_EDGES = 1000;
export const WORKFLOW_MAX_RETRIES = 10;
/** A day: the longest wait between two tries of a node. */
export const WORKFLOW_MAX_RETRY_DELAY_SECONDS = 86_400;
/** A week: the longest a node (or an approval) may take before it times out. */
export const WORKFLOW_MAX_TIMEOUT_SECONDS = 7 * 86_400;
/** A node id: what edges, joins and outputs name it by. */
export const WORKFLOW_NODE_ID = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

const nodeIdSchema = z
  .string(requiredMessage('Node'))
  .regex(WORKFLOW_NODE_ID, coded('A node id is 1 to 64 letters, digits, "_", "." or "-", starting with a letter or digit', ErrorCodes.workflowNodeIdInvalid));

const positiveId = z.number().int().positive();
const range = (label: 'retries' | 'retry_delay' | 'timeout' | 'required_approvals', text: string, min: number, max: number) =>
  z
    .number(coded(`${text} must be a number from ${min} to ${max}`, ErrorCodes.outOfRange, { label_key: label, min, max }))
    .int(coded(`${text} must be a number from ${min} to ${max}`, ErrorCodes.outOfRange, { label_key: label, min, max }))
    .min(min, coded(`${text} must be a number from ${min} to ${max}`, ErrorCodes.outOfRange, { label_key: label, min, max }))
    .max(max, coded(`${text} must be a number from ${min} to ${max}`, ErrorCodes.outOfRange, { label_key: label, min, max }));

/**
 * What a template node changes of its template's task, where the template allows it: the branch,
 * the host limit, the inventory, the variable group, and survey answers or extra variables.
 */
export const workflowNodeParamsSchema = z.object({
  git_branch: z.string().trim().max(255).nullish(),
  limit: z.string().trim().max(4096).nullish(),
  inventory_id: positiveId.nullish(),
  environment_id: positiveId.nullish(),
  /** Survey answers and extra variables, as a task's `environment` object. */
  environment: z.record(z.string(), z.unknown()).nullish(),
});
export type WorkflowNodeParams = z.output<typeof workflowNodeParamsSchema>;

/** Who may approve an approval node: named users, holders of project roles, or members of mapped directory groups. */
export const workflowApproversSchema = z.object({
  users: z.array(positiveId).max(100).default([]),
  roles: z.array(z.enum(PROJECT_ROLES)).max(PROJECT_ROLES.length).default([]),
  groups: z.array(z.string().trim().min(1).max(255)).max(100).default([]),
});
export type WorkflowApprovers = z.output<typeof workflowApproversSchema>;

export const workflowNodeSchema = z.object({
  id: nodeIdSchema,
  type: z.enum(WORKFLOW_NODE_TYPES, coded('Type must be template, approval or workflow', ErrorCodes.mustBeOneOf, { name: 'type', values: WORKFLOW_NODE_TYPES.join(', ') })),
  template_id: positiveId.nullish(),
  workflow_id: positiveId.nullish(),
  /** Tries after the first failure, each after retry_delay_seconds doubled per try. */
  retries: range('retries', 'Retries', 0, WORKFLOW_MAX_RETRIES).default(0),
  retry_delay_seconds: range('retry_delay', 'Retry delay', 0, WORKFLOW_MAX_RETRY_DELAY_SECONDS).default(0),
  timeout_seconds: range('timeout', 'Timeout', 1, WORKFLOW_MAX_TIMEOUT_SECONDS).nullish(),
  params: workflowNodeParamsSchema.nullish(),
  approvers: workflowApproversSchema.nullish(),
  required_approvals: range('required_approvals', 'Required approvals', 1, 100).nullish(),
  allow_self_approval: z.boolean().default(false),
  /** What a timed-out approval means. */
  on_timeout: z.enum(['reject', 'approve']).default('reject'),
  /** Where the console's editor draws the node (layout only). */
  position: z.object({ x: z.number().finite(), y: z.number().finite() }).nullish(),
});
export type WorkflowNode = z.output<typeof workflowNodeSchema>;

export const workflowEdgeSchema = z.object({
  from: nodeIdSchema,
  to: nodeIdSchema,
  on: z.enum(WORKFLOW_EDGE_CONDITIONS, coded('An edge fires on success, failure or always', ErrorCodes.mustBeOneOf, { name: 'on', values: WORKFLOW_EDGE_CONDITIONS.join(', ') })),
});
export type WorkflowEdge = z.output<typeof workflowEdgeSchema>;

/** A workflow's graph: what the API stores and answers beside the name. */
export interface WorkflowGraph {
  nodes: readonly WorkflowNode[];
  edges: readonly WorkflowEdge[];
  joins: Readonly<Record<string, WorkflowJoin>>;
}

/** A refusal of the graph, naming the node at fault (`node`) and where in the body it is (`path`). */
export interface WorkflowGraphProblem {
  message: string;
  code: (typeof ErrorCodes)[keyof typeof ErrorCodes];
  node: string;
  path: (string | number)[];
}

/**
 * The first thing wrong with a graph, or null: node ids unique; each node has what its type
 * needs; edges and joins name existing nodes, no edge twice; and no cycle (a run must end).
 * Shared by the API and the console's editor, so both say the same thing.
 */
export function workflowGraphProblem(g: WorkflowGraph): WorkflowGraphProblem | null {
  const ids = new Set<string>();
  for (const [i, n] of g.nodes.entries()) {
    if (ids.has(n.id)) return { message: `Node "${n.id}" appears twice`, code: ErrorCodes.workflowDuplicateNode, node: n.id, path: ['nodes', i, 'id'] };
    ids.add(n.id);
    if (n.type === 'template' && !n.template_id)
      return { message: `Node "${n.id}" needs a template`, code: ErrorCodes.workflowNodeTemplateRequired, node: n.id, path: ['nodes', i, 'template_id'] };
    if (n.type === 'workflow' && !n.workflow_id)
      return { message: `Node "${n.id}" needs a workflow`, code: ErrorCodes.workflowNodeWorkflowRequired, node: n.id, path: ['nodes', i, 'workflow_id'] };
    if (n.type === 'approval') {
      const a = n.approvers;
      if (!a || a.users.length + a.roles.length + a.groups.length === 0)
        return { message: `Approval node "${n.id}" needs approvers`, code: ErrorCodes.workflowApproversRequired, node: n.id, path: ['nodes', i, 'approvers'] };
      if (a.roles.length === 0 && a.groups.length === 0 && (n.required_approvals ?? 1) > a.users.length)
        return { message: `Approval node "${n.id}" asks for more approvals than it has approvers`, code: ErrorCodes.workflowTooFewApprovers, node: n.id, path: ['nodes', i, 'required_approvals'] };
    }
  }
  const seen = new Set<string>();
  const next = new Map<string, string[]>();
  for (const [i, e] of g.edges.entries()) {
    for (const end of ['from', 'to'] as const)
      if (!ids.has(e[end]))
        return { message: `An edge names node "${e[end]}", which is not in the workflow`, code: ErrorCodes.workflowUnknownNode, node: e[end], path: ['edges', i, end] };
    const key = `${e.from}\u0000${e.to}\u0000${e.on}`;
    if (seen.has(key)) return { message: `The edge from "${e.from}" to "${e.to}" appears twice`, code: ErrorCodes.workflowDuplicateEdge, node: e.from, path: ['edges', i] };
    seen.add(key);
    next.set(e.from, [...(next.get(e.from) ?? []), e.to]);
  }
  for (const id of Object.keys(g.joins))
    if (!ids.has(id)) return { message: `A join names node "${id}", which is not in the workflow`, code: ErrorCodes.workflowUnknownNode, node: id, path: ['joins', id] };
  const cyclic = nodeOnCycle([...ids], next);
  if (cyclic !== null)
    return { message: `Node "${cyclic}" is on a cycle: a workflow must be able to end`, code: ErrorCodes.workflowCycle, node: cyclic, path: ['edges'] };
  return null;
}

/** A node on a cycle of `next`, or null (depth-first, iterative: a long chain cannot overflow the stack). */
function nodeOnCycle(ids: string[], next: Map<string, string[]>): string | null {
  const state = new Map<string, 1 | 2>();
  for (const start of ids) {
    if (state.has(start)) continue;
    const stack: { id: string; i: number }[] = [{ id: start, i: 0 }];
    state.set(start, 1);
    while (stack.length) {
      const top = stack[stack.length - 1]!;
      const out = next.get(top.id) ?? [];
      if (top.i >= out.length) {
        state.set(top.id, 2);
        stack.pop();
        continue;
      }
      const to = out[top.i++]!;
      if (state.get(to) === 1) return to;
      if (!state.has(to)) {
        state.set(to, 1);
        stack.push({ id: to, i: 0 });
      }
    }
  }
  return null;
}

/** A workflow as it is created or replaced. */
export const workflowInputSchema = z
  .object({
    name: requiredName('Name'),
    description: z.string().max(DESCRIPTION_MAX).nullish().transform((v) => v ?? ''),
    nodes: z
      .array(workflowNodeSchema)
      .min(1, coded('A workflow needs at least one node', ErrorCodes.workflowEmpty))
      .max(WORKFLOW_MAX_NODES, coded(`A workflow has at most ${WORKFLOW_MAX_NODES} nodes`, ErrorCodes.workflowTooLarge, { max: WORKFLOW_MAX_NODES })),
    edges: z
      .array(workflowEdgeSchema)
      .max(WORKFLOW_MAX_EDGES, coded(`A workflow has at most ${WORKFLOW_MAX_EDGES} edges`, ErrorCodes.workflowTooLarge, { max: WORKFLOW_MAX_EDGES }))
      .nullish()
      .transform((v) => v ?? []),
    joins: z
      .record(z.string(), z.enum(WORKFLOW_JOINS, coded('A join is all or any', ErrorCodes.mustBeOneOf, { name: 'join', values: WORKFLOW_JOINS.join(', ') })))
      .nullish()
      .transform((v) => v ?? {}),
  })
  .superRefine((w, ctx) => {
    const problem = workflowGraphProblem(w);
    if (problem) ctx.addIssue({ code: 'custom', path: problem.path, ...codedIssue(problem.message, problem.code, { node: problem.node }) });
  });
export type WorkflowInput = z.output<typeof workflowInputSchema>;

export const workflowSchema = z.object({
  id: z.number().int(),
  project_id: z.number().int(),
  name: z.string(),
  description: z.string(),
  nodes: z.array(workflowNodeSchema),
  edges: z.array(workflowEdgeSchema),
  joins: z.record(z.string(), z.enum(WORKFLOW_JOINS)),
  created: z.string(),
  updated: z.string(),
});
export type Workflow = z.output<typeof workflowSchema>;
