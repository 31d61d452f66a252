import type {
  Workflow,
  WorkflowEdge,
  WorkflowEdgeCondition,
  WorkflowInput,
  WorkflowJoin,
  WorkflowNode,
  WorkflowNodeType,
} from '@gantry/contracts';

/** The editor's working copy of a workflow: what Save sends, kept whole while the user edits. */
export interface Draft {
  name: string;
  description: string;
  nodes: WorkflowNode[];
  edges: WorkflowEdge[];
  joins: Record<string, WorkflowJoin>;
}

export const emptyDraft = (): Draft => ({ name: '', description: '', nodes: [], edges: [], joins: {} });

export const draftOf = (w: Workflow): Draft => ({
  name: w.name,
  description: w.description,
  nodes: w.nodes,
  edges: w.edges,
  joins: w.joins,
});

/** Where a node without a saved position is drawn: columns by depth from the start nodes. */
export function layoutPosition(draft: Draft, id: string): { x: number; y: number } {
  const depth = new Map<string, number>();
  const visit = (n: string, seen: Set<string>): number => {
    if (depth.has(n)) return depth.get(n)!;
    if (seen.has(n)) return 0;
    seen.add(n);
    const parents = draft.edges.filter((e) => e.to === n).map((e) => e.from);
    const d = parents.length ? Math.max(...parents.map((p) => visit(p, seen))) + 1 : 0;
    depth.set(n, d);
    return d;
  };
  const d = visit(id, new Set());
  const row = draft.nodes.filter((n) => !n.position && visit(n.id, new Set()) === d).findIndex((n) => n.id === id);
  return { x: 40 + d * 240, y: 40 + Math.max(row, 0) * 110 };
}

/** A node id not yet used in the draft: "<type>-<n>". */
export function freshNodeId(draft: Draft, type: WorkflowNodeType): string {
  const used = new Set(draft.nodes.map((n) => n.id));
  for (let i = 1; ; i++) if (!used.has(`${type}-${i}`)) return `${type}-${i}`;
}

/** Adds a node of the type, placed right of the last one; answers the draft and the new id. */
export function addNode(draft: Draft, type: WorkflowNodeType): { draft: Draft; id: string } {
  const id = freshNodeId(draft, type);
  const last = draft.nodes.at(-1);
  const lastPos = last ? (last.position ?? layoutPosition(draft, last.id)) : null;
  const node: WorkflowNode = {
    id,
    type,
    retries: 0,
    retry_delay_seconds: 0,
    allow_self_approval: false,
    on_timeout: 'reject',
    position: lastPos ? { x: lastPos.x + 240, y: lastPos.y } : { x: 40, y: 40 },
    ...(type === 'approval' ? { approvers: { users: [], roles: [], groups: [] }, required_approvals: 1 } : {}),
  };
  return { draft: { ...draft, nodes: [...draft.nodes, node] }, id };
}

/** Removes a node with its edges and join. */
export function removeNode(draft: Draft, id: string): Draft {
  const { [id]: _gone, ...joins } = draft.joins;
  return {
    ...draft,
    nodes: draft.nodes.filter((n) => n.id !== id),
    edges: draft.edges.filter((e) => e.from !== id && e.to !== id),
    joins,
  };
}

export function updateNode(draft: Draft, id: string, patch: Partial<WorkflowNode>): Draft {
  return { ...draft, nodes: draft.nodes.map((n) => (n.id === id ? { ...n, ...patch } : n)) };
}

/** Renames a node; its edges and join follow it. */
export function renameNode(draft: Draft, from: string, to: string): Draft {
  if (from === to) return draft;
  const rename = (x: string) => (x === from ? to : x);
  const joins = Object.fromEntries(Object.entries(draft.joins).map(([k, v]) => [rename(k), v]));
  return {
    ...draft,
    nodes: draft.nodes.map((n) => (n.id === from ? { ...n, id: to } : n)),
    edges: draft.edges.map((e) => ({ ...e, from: rename(e.from), to: rename(e.to) })),
    joins,
  };
}

/** Adds an edge unless the same one (ends and condition) is there or it loops on one node. */
export function addEdge(draft: Draft, edge: WorkflowEdge): Draft {
  if (edge.from === edge.to || draft.edges.some((e) => e.from === edge.from && e.to === edge.to && e.on === edge.on))
    return draft;
  return { ...draft, edges: [...draft.edges, edge] };
}

export function removeEdge(draft: Draft, index: number): Draft {
  return { ...draft, edges: draft.edges.filter((_, i) => i !== index) };
}

export function setEdgeCondition(draft: Draft, index: number, on: WorkflowEdgeCondition): Draft {
  return { ...draft, edges: draft.edges.map((e, i) => (i === index ? { ...e, on } : e)) };
}

export function setJoin(draft: Draft, id: string, join: WorkflowJoin): Draft {
  return { ...draft, joins: { ...draft.joins, [id]: join } };
}

/** How many edges lead into the node (a join matters from two). */
export const incoming = (draft: Draft, id: string) => draft.edges.filter((e) => e.to === id).length;

/** The body Save sends: joins only for nodes that have several incoming edges, empty overrides dropped. */
export function toInput(draft: Draft): WorkflowInput {
  const joins = Object.fromEntries(Object.entries(draft.joins).filter(([id]) => incoming(draft, id) > 1));
  const nodes = draft.nodes.map((n) => {
    const params = n.params
      ? Object.fromEntries(Object.entries(n.params).filter(([, v]) => v !== null && v !== undefined && v !== ''))
      : null;
    return { ...n, params: params && Object.keys(params).length ? params : null };
  });
  return { name: draft.name.trim(), description: draft.description, nodes, edges: draft.edges, joins };
}
