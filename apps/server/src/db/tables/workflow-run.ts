import type { ColumnType, Generated } from 'kysely';

/** A run of a workflow, advanced by whichever server node holds its lease (migration 028). */
export interface WorkflowRunTable {
  id: Generated<number>;
  project_id: number;
  workflow_id: number;
  /** The workflow's name when the run started (the run's answer keeps it if the workflow goes). */
  workflow_name: string;
  /** The workflow's graph when the run started, as contracts' WorkflowGraph JSON. */
  graph: string;
  status: string;
  user_id: number | null;
  parent_run_id: number | null;
  parent_node: string | null;
  parent_attempt: number | null;
  schedule_id: number | null;
  integration_id: number | null;
  created: string;
  ended: string | null;
  lease_owner: string | null;
  lease_until: string | null;
  /** When a driver must look at the run next (ISO time). */
  due_at: string;
  /** JSON `{vars, env}` an integration's delivery gave the run (migration 033); null otherwise. */
  start_values: ColumnType<string | null, string | null | undefined, string | null>;
}

/** A node's state in a run. */
export interface WorkflowRunNodeTable {
  run_id: number;
  node_id: string;
  status: string;
  /** Tries over every resume: the current try's task is the one with this attempt. */
  attempts: Generated<number>;
  /** Tries since the last resume: the retry budget counts these. */
  tries: Generated<number>;
  next_try_at: string | null;
  /** When the current try started (its timeout counts from here). */
  started: string | null;
  ended: string | null;
  error: string | null;
  approval_id: number | null;
  child_run_id: number | null;
}
