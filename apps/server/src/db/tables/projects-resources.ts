import type { ColumnType, Generated } from 'kysely';

export interface ProjectTable {
  id: Generated<number>;
  name: string;
  created: string;
  type: string;
  alert: number;
  alert_chat: string | null;
  max_parallel_tasks: number;
  /** 1 when `gantry apply` owns the project's objects: the console shows them read-only. */
  managed_by_code: Generated<number>;
}

export interface ProjectUserTable {
  id: Generated<number>;
  project_id: number;
  user_id: number;
  role: string;
  created: string;
  /** The mapping source and group that made this membership; null when made by hand. */
  mapped_source: string | null;
  mapped_group: string | null;
}

export interface AccessKeyTable {
  id: Generated<number>;
  project_id: number;
  name: string;
  type: string;
  /** Sealed JSON of the key material (SecretBox); null when empty. */
  secret: string | null;
  created: string;
}

export interface RepositoryTable {
  id: Generated<number>;
  project_id: number;
  name: string;
  git_url: string;
  git_branch: string;
  ssh_key_id: number;
  created: string;
}

export interface InventoryTable {
  id: Generated<number>;
  project_id: number;
  name: string;
  type: string;
  inventory: string;
  ssh_key_id: number | null;
  become_key_id: number | null;
  repository_id: number | null;
  template_id: number | null;
  created: string;
  /** Migration 036: a `file` inventory's branch; the last read of a `file`/`url` inventory. */
  git_branch: ColumnType<string | null, string | null | undefined, string | null>;
  last_read_at: ColumnType<string | null, string | null | undefined, string | null>;
  last_error: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface EnvironmentTable {
  id: Generated<number>;
  project_id: number;
  name: string;
  json: string;
  env: string;
  created: string;
}

export interface EnvironmentSecretTable {
  id: Generated<number>;
  project_id: number;
  environment_id: number;
  name: string;
  type: string;
  /** Sealed value (SecretBox). */
  secret: string;
}

export interface ViewTable {
  id: Generated<number>;
  project_id: number;
  title: string;
  position: number;
}
