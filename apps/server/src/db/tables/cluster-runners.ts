import type { Generated } from 'kysely';

export interface NodeTable {
  id: string;
  address: string;
  version: string;
  started: string;
  last_heartbeat: string;
}

export interface RunnerTable {
  id: Generated<number>;
  project_id: number | null;
  name: string;
  tag: string;
  webhook: string;
  max_parallel_tasks: number;
  active: number;
  token_hash: string;
  public_key: string;
  touched: string | null;
  cleaning_requested: number;
  created: string;
}

export interface AppTable {
  id: string;
  title: string;
  icon: string;
  path: string;
  priority: number;
  /** JSON list of extra argv strings. */
  args: string;
  /** Null: active when the executable is found. */
  active: number | null;
  created: string;
}
