import type { Generated } from 'kysely';

/**
 * Table shapes. Booleans are stored as integers (0/1) and times as ISO-8601 UTC text on both
 * engines, so one code path serves SQLite and PostgreSQL.
 */
export interface UserTable {
  id: Generated<number>;
  username: string;
  name: string;
  email: string;
  password: string | null;
  admin: number;
  external: number;
  alert: number;
  created: string;
}

export interface SessionTable {
  /** sha256 of the cookie value: a database leak does not leak live sessions. */
  id: string;
  user_id: number;
  created: string;
  last_active: string;
  ip: string;
  user_agent: string;
}

export interface ApiTokenTable {
  id: Generated<number>;
  token_id: string;
  token_hash: string;
  user_id: number;
  created: string;
  expired: number;
}

export interface ProjectTable {
  id: Generated<number>;
  name: string;
  created: string;
  type: string;
  alert: number;
  alert_chat: string | null;
  max_parallel_tasks: number;
}

export interface ProjectUserTable {
  id: Generated<number>;
  project_id: number;
  user_id: number;
  role: string;
  created: string;
}

export interface AuthFailureTable {
  key: string;
  count: number;
  first_at: string;
  last_at: string;
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

export interface EventTable {
  id: Generated<number>;
  project_id: number | null;
  user_id: number | null;
  object_type: string;
  object_id: number | null;
  description: string;
  created: string;
}

export interface Database {
  user: UserTable;
  session: SessionTable;
  api_token: ApiTokenTable;
  project: ProjectTable;
  project_user: ProjectUserTable;
  auth_failure: AuthFailureTable;
  access_key: AccessKeyTable;
  repository: RepositoryTable;
  inventory: InventoryTable;
  environment: EnvironmentTable;
  environment_secret: EnvironmentSecretTable;
  event: EventTable;
}
