import type { Generated } from 'kysely';

export interface ScheduleTable {
  id: Generated<number>;
  project_id: number;
  /** Null for a workflow's schedule (migration 031): exactly one of template_id and workflow_id. */
  template_id: number | null;
  workflow_id: number | null;
  name: string;
  cron_format: string;
  repository_id: number | null;
  active: number;
  last_fired: string | null;
  active_since: string;
  last_commit_hash: string | null;
  created: string;
  /** Answers for every run, `{"environment": "<JSON object text>"}` (migration 035); null: none. */
  task_params: string | null;
  /** '' runs the template; 'drift_check' plans only and records drift (migration 037). */
  type: Generated<string>;
}

export interface IntegrationTable {
  id: Generated<number>;
  project_id: number;
  name: string;
  /** Null for an integration that starts a workflow (migration 031): exactly one of template_id and workflow_id. */
  template_id: number | null;
  workflow_id: number | null;
  auth_method: string;
  auth_header: string | null;
  /** A login_password key whose password (or login and password, for basic) is the secret. */
  auth_secret_id: number | null;
  searchable: number;
  /** JSON object of the run options given to every task it starts. */
  task_params: string;
  created: string;
}

export interface IntegrationAliasTable {
  id: Generated<number>;
  project_id: number;
  /** Null for a project-level alias. */
  integration_id: number | null;
  alias: string;
  created: string;
}

export interface IntegrationMatcherTable {
  id: Generated<number>;
  project_id: number;
  integration_id: number;
  name: string;
  match_type: string;
  body_data_type: string | null;
  key: string;
  method: string;
  value: string;
}

export interface IntegrationExtractValueTable {
  id: Generated<number>;
  project_id: number;
  integration_id: number;
  name: string;
  value_source: string;
  body_data_type: string | null;
  key: string;
  variable_type: string;
  variable: string;
}

/** A webhook delivery an integration took, by the sender's delivery id (kept 24 hours). */
export interface WebhookDeliveryTable {
  integration_id: number;
  delivery_id: string;
  received: string;
}

/** A webhook delivery an integration took, by the SHA-256 of its content (kept 24 hours). */
export interface WebhookDeliveryBodyTable {
  integration_id: number;
  body_sha256: string;
  received: string;
}
