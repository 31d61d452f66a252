import type {
  WorkflowGraph,
  WorkflowNodeStatus,
  WorkflowRun,
  WorkflowRunStatus,
  WorkflowRunSummary,
} from '@gantry/contracts';
import type { RunNodeRow, RunRow, RunTaskRow } from './workflow-runs.repository.js';

export function presentRunSummary(row: RunRow): WorkflowRunSummary {
  return {
    id: row.id,
    project_id: row.project_id,
    workflow_id: row.workflow_id,
    workflow_name: row.workflow_name,
    status: row.status as WorkflowRunStatus,
    user_id: row.user_id,
    parent_run_id: row.parent_run_id,
    schedule_id: row.schedule_id,
    integration_id: row.integration_id,
    created: row.created,
    ended: row.ended,
  };
}

/** Keys of an output object (its values stay in the task's result). */
function outputKeys(text: string | null | undefined): string[] {
  if (!text) return [];
  try {
    const v = JSON.parse(text) as unknown;
    return v && typeof v === 'object' && !Array.isArray(v) ? Object.keys(v) : [];
  } catch {
    return [];
  }
}

/**
 * A run with its nodes in the graph's order, each with its tasks by try. A template node's
 * approval is the one its latest try's task waited for (`taskApprovals`: approval id by task id).
 */
export function presentRun(
  row: RunRow,
  nodes: RunNodeRow[],
  tasks: RunTaskRow[],
  taskApprovals: ReadonlyMap<number, number> = new Map(),
): WorkflowRun {
  const graph = JSON.parse(row.graph) as WorkflowGraph;
  const byId = new Map(nodes.map((n) => [n.node_id, n]));
  return {
    ...presentRunSummary(row),
    nodes: graph.nodes.map((def) => {
      const n = byId.get(def.id);
      const own = tasks.filter((t) => t.workflow_node === def.id);
      const current = own.find((t) => t.workflow_attempt === n?.attempts);
      const taskApproval = [...own].reverse().find((t) => taskApprovals.has(t.id));
      return {
        id: def.id,
        type: def.type,
        status: (n?.status ?? 'pending') as WorkflowNodeStatus,
        attempts: n?.attempts ?? 0,
        task_ids: own.map((t) => t.id),
        approval_id: n?.approval_id ?? (taskApproval ? taskApprovals.get(taskApproval.id)! : null),
        child_run_id: n?.child_run_id ?? null,
        child_workflow_id: n?.child_run_id ? (def.workflow_id ?? null) : null,
        next_try_at: n?.next_try_at ?? null,
        error: n?.error ?? null,
        output_keys: n?.status === 'success' ? outputKeys(current?.output) : [],
        started: n?.started ?? null,
        ended: n?.ended ?? null,
      };
    }),
  };
}
