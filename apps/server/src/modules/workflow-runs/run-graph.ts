import type { WorkflowEdge, WorkflowGraph, WorkflowNode, WorkflowNodeStatus } from '@gantry/contracts';

/** Node states a run never leaves by itself (resume puts failed, stopped and skipped ones back). */
export const FINAL_NODE_STATUSES: readonly WorkflowNodeStatus[] = ['success', 'failed', 'skipped', 'stopped'];
export const isFinalNode = (s: WorkflowNodeStatus) => FINAL_NODE_STATUSES.includes(s);

/** An edge fired (its source ended as it asks), cannot fire any more, or may still. */
export function edgeState(edge: WorkflowEdge, source: WorkflowNodeStatus): 'fired' | 'dead' | 'open' {
  if (source === 'success' && (edge.on === 'success' || edge.on === 'always')) return 'fired';
  if (source === 'failed' && (edge.on === 'failure' || edge.on === 'always')) return 'fired';
  return isFinalNode(source) ? 'dead' : 'open';
}

/**
 * What a pending node does now. A root node starts at once. Join `all`: it starts when every
 * incoming edge fired and is skipped as soon as one cannot; join `any`: it starts at the first
 * edge that fires and is skipped when none can.
 */
export function readiness(
  graph: WorkflowGraph,
  nodeId: string,
  status: (id: string) => WorkflowNodeStatus,
): 'start' | 'skip' | 'wait' {
  const incoming = graph.edges.filter((e) => e.to === nodeId).map((e) => edgeState(e, status(e.from)));
  if (incoming.length === 0) return 'start';
  if ((graph.joins[nodeId] ?? 'all') === 'any') {
    if (incoming.includes('fired')) return 'start';
    return incoming.every((s) => s === 'dead') ? 'skip' : 'wait';
  }
  if (incoming.includes('dead')) return 'skip';
  return incoming.every((s) => s === 'fired') ? 'start' : 'wait';
}

/**
 * A finished run's result: failed when a node failed with no failure or always edge to handle
 * it, or was stopped (by a user, outside the run's stop); success otherwise.
 */
export function runOutcome(graph: WorkflowGraph, status: (id: string) => WorkflowNodeStatus): 'success' | 'failed' {
  for (const n of graph.nodes) {
    const s = status(n.id);
    if (s === 'stopped') return 'failed';
    if (s === 'failed' && !graph.edges.some((e) => e.from === n.id && (e.on === 'failure' || e.on === 'always')))
      return 'failed';
  }
  return 'success';
}

export function nodeOf(graph: WorkflowGraph, id: string): WorkflowNode | undefined {
  return graph.nodes.find((n) => n.id === id);
}
