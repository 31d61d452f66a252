import type { Workflow, WorkflowGraph } from '@gantry/contracts';
import type { WorkflowRow } from './workflows.repository.js';

/** The stored graph document. */
export function graphOf(row: WorkflowRow): WorkflowGraph {
  return JSON.parse(row.graph) as WorkflowGraph;
}

export function presentWorkflow(row: WorkflowRow): Workflow {
  const g = graphOf(row);
  return {
    id: row.id,
    project_id: row.project_id,
    name: row.name,
    description: row.description,
    nodes: [...g.nodes],
    edges: [...g.edges],
    joins: { ...g.joins },
    created: row.created,
    updated: row.updated,
  };
}
