import type { ColumnType, Generated } from 'kysely';

export interface TaskTable {
  id: Generated<number>;
  project_id: number;
  template_id: number;
  status: string;
  message: string;
  commit_hash: string | null;
  commit_message: string;
  version: string | null;
  build_task_id: number | null;
  user_id: number | null;
  integration_id: number | null;
  schedule_id: number | null;
  environment: string;
  secret: string | null;
  params: string;
  git_branch: string | null;
  inventory_id: number | null;
  arguments: string | null;
  created: string;
  start: string | null;
  end: string | null;
  runner_id: number | null;
  node_id: string | null;
  /** JSON object of environment variables added to the run's (from an integration's extracted values). */
  env: string | null;
  /** 1 when a force stop was asked: the remote runner kills instead of terminating. */
  stop_force: Generated<number>;
  /** 1 once the runner that ran the task reported its final status (later reports are refused). */
  runner_reported: Generated<number>;
  /** The workflow run, node and try this task is (migration 028; unique together: a try runs once). */
  workflow_run_id: ColumnType<number | null, number | null | undefined, number | null>;
  workflow_node: ColumnType<string | null, string | null | undefined, string | null>;
  workflow_attempt: ColumnType<number | null, number | null | undefined, number | null>;
  /** JSON object the task left in the file named by GANTRY_OUTPUT (migration 029); null when none. */
  output: Generated<string | null>;
  /** JSON object `{nodeId: output}` the task was given as data (workflow nodes before it); null when none. */
  inputs: Generated<string | null>;
  /** The variable group of the run when not the template's (a workflow node's override); migration 032. */
  environment_id: ColumnType<number | null, number | null | undefined, number | null>;
}

/** No id column on PostgreSQL (migration 015): a line is its task and seq. */
export interface TaskOutputTable {
  task_id: number;
  seq: number;
  time: string;
  output: string;
}

/** Migration 036: how one host of an Ansible task's PLAY RECAP did. */
export interface TaskHostTable {
  task_id: number;
  project_id: number;
  host: string;
  ok: number;
  changed: number;
  unreachable: number;
  failed: number;
  skipped: number;
  rescued: number;
  ignored: number;
}
