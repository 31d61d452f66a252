import type { Generated } from 'kysely';

/** A project's workflow: its graph (nodes, edges, joins) as one JSON document, checked when saved. */
export interface WorkflowTable {
  id: Generated<number>;
  project_id: number;
  name: string;
  description: string;
  /** `{nodes, edges, joins}` as contracts' WorkflowGraph. */
  graph: string;
  created: string;
  updated: string;
}
