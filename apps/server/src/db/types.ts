import type { ColumnType, Generated } from 'kysely';
import type { WorkflowTable } from './tables/workflow.js';
import type {
  NotificationDeliveryTable,
  NotificationDestinationTable,
  NotificationRuleTable,
} from './tables/notification-routing.js';
import type { ApprovalLinkUseTable, ApprovalTable, ApprovalVoteTable } from './tables/approval.js';
import type { WorkflowRunNodeTable, WorkflowRunTable } from './tables/workflow-run.js';

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
  /** 0 while the session waits for the second sign-in step (TOTP), else 1. */
  verified: number;
  /** When its sign-in was completed (ISO): the password, or the code after it; null while waiting for the code. */
  signed_in: string | null;
  /** 1: opened by a provider that does its own multi-factor check; the two-factor policy does not apply. */
  mfa_by_provider: number;
}

/** An instance-wide setting an admin changes (migration 022); `value` is JSON text. */
export interface InstanceSettingTable {
  key: string;
  value: string;
  updated: string;
}

export interface UserTotpTable {
  id: Generated<number>;
  user_id: number;
  /** Sealed base32 TOTP secret (SecretBox). */
  secret: string;
  /** sha256 of the recovery code. */
  recovery_hash: string;
  /** The last 30-second step whose code was accepted (replay guard). */
  last_step: number;
  created: string;
  /** 1 once a code confirmed the method (sign-in asks for codes then), 0 while it waits for one. */
  confirmed: Generated<number>;
}

export interface ApiTokenTable {
  id: Generated<number>;
  token_id: string;
  token_hash: string;
  user_id: number;
  created: string;
  expired: number;
  /** When the token stops working on its own (ISO); null: never. */
  expires: string | null;
}

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

export interface IdentityMappingTable {
  id: Generated<number>;
  source: string;
  group_name: string;
  admin: number;
  project_id: number | null;
  role: string | null;
  created: string;
}

export interface IdentityAdminGrantTable {
  user_id: number;
  source: string;
  group_name: string;
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
  /** Migration 036: a `file` inventory's branch; the last read of a `file`/`url` inventory. */
  git_branch: ColumnType<string | null, string | null | undefined, string | null>;
  last_read_at: ColumnType<string | null, string | null | undefined, string | null>;
  last_error: ColumnType<string | null, string | null | undefined, string | null>;
}

/** Migration 036: how one host of an Ansible task's PLAY RECAP did. */
/** A task's saved Terraform plan (migration 037). */
export interface TerraformPlanTable {
  task_id: number;
  project_id: number;
  template_id: number;
  inventory_id: number | null;
  /** JSON text of PlanSummary (with the policy verdict). */
  summary: string;
  /** The role the policy asks to confirm this plan (or higher); null: the usual permission. */
  confirm_role: string | null;
  confirmed_by: number | null;
  confirmed_at: string | null;
  created: string;
}

/** The last drift check per template and workspace (migration 037). */
export interface TerraformDriftTable {
  /** `<template_id>:<inventory_id or 0>`. */
  scope: string;
  project_id: number;
  template_id: number;
  inventory_id: number | null;
  status: string;
  checked_at: string;
  /** JSON text of PlanSummary when drifted. */
  summary: string | null;
  task_id: number | null;
  refresh_only: number;
}

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

export interface ViewTable {
  id: Generated<number>;
  project_id: number;
  title: string;
  position: number;
}

export interface TemplateTable {
  id: Generated<number>;
  project_id: number;
  name: string;
  description: string;
  type: string;
  app: string;
  playbook: string;
  inventory_id: number | null;
  repository_id: number;
  environment_id: number;
  view_id: number | null;
  git_branch: string | null;
  runner_tag: string | null;
  start_version: string | null;
  build_template_id: number | null;
  autorun: number;
  arguments: string | null;
  allow_override_args_in_task: number;
  allow_override_branch_in_task: number;
  allow_extra_vars_in_task: number;
  suppress_success_alerts: number;
  /** JSON list of survey variables. */
  survey_vars: string;
  /** JSON object of template task params. */
  task_params: string;
  created: string;
  /** JSON ApprovalPolicy: its tasks wait in `waiting_approval` until approved (migration 030); null for none. */
  approval_policy: string | null;
  /** Migration 034: JSON lists of ids in merge / `-i` order, first = environment_id / inventory_id; null: that one alone. */
  environment_ids: ColumnType<string | null, string | null | undefined, string | null>;
  inventory_ids: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface TemplateVaultTable {
  id: Generated<number>;
  project_id: number;
  template_id: number;
  name: string | null;
  type: string;
  vault_key_id: number | null;
  script: string | null;
}

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

export interface NodeTable {
  id: string;
  address: string;
  version: string;
  started: string;
  last_heartbeat: string;
}

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

export interface Database {
  user: UserTable;
  session: SessionTable;
  user_totp: UserTotpTable;
  api_token: ApiTokenTable;
  project: ProjectTable;
  project_user: ProjectUserTable;
  identity_mapping: IdentityMappingTable;
  identity_admin_grant: IdentityAdminGrantTable;
  auth_failure: AuthFailureTable;
  access_key: AccessKeyTable;
  repository: RepositoryTable;
  inventory: InventoryTable;
  environment: EnvironmentTable;
  environment_secret: EnvironmentSecretTable;
  event: EventTable;
  view: ViewTable;
  template: TemplateTable;
  template_vault: TemplateVaultTable;
  task: TaskTable;
  task_output: TaskOutputTable;
  task_host: TaskHostTable;
  terraform_plan: TerraformPlanTable;
  terraform_drift: TerraformDriftTable;
  node: NodeTable;
  schedule: ScheduleTable;
  integration: IntegrationTable;
  integration_alias: IntegrationAliasTable;
  integration_matcher: IntegrationMatcherTable;
  integration_extract_value: IntegrationExtractValueTable;
  app: AppTable;
  runner: RunnerTable;
  notification_destination: NotificationDestinationTable;
  notification_rule: NotificationRuleTable;
  notification_delivery: NotificationDeliveryTable;
  terraform_state: TerraformStateTable;
  terraform_alias: TerraformAliasTable;
  terraform_lock: TerraformLockTable;
  terraform_backend: TerraformBackendTable;
  webhook_delivery: WebhookDeliveryTable;
  webhook_delivery_body: WebhookDeliveryBodyTable;
  external_identity: ExternalIdentityTable;
  ldap_user: LdapUserTable;
  master_key_check: MasterKeyCheckTable;
  instance_setting: InstanceSettingTable;
  user_passkey: UserPasskeyTable;
  passkey_challenge: PasskeyChallengeTable;
  audit_entry: AuditEntryTable;
  audit_chain: AuditChainTable;
  audit_export_cursor: AuditExportCursorTable;
  workflow: WorkflowTable;
  approval: ApprovalTable;
  approval_vote: ApprovalVoteTable;
  approval_link_use: ApprovalLinkUseTable;
  workflow_run: WorkflowRunTable;
  workflow_run_node: WorkflowRunNodeTable;
}

/** A user's passkey (WebAuthn credential), migration 024. */
export interface UserPasskeyTable {
  id: Generated<number>;
  user_id: number;
  /** base64url credential id, unique over all users. */
  credential_id: string;
  /** base64url COSE public key. */
  public_key: string;
  /** The authenticator's signature counter (bigint: PostgreSQL answers it as text). */
  counter: ColumnType<number | string, number, number>;
  /** JSON list of transports the browser reported. */
  transports: string;
  name: string;
  created: string;
  last_used: string | null;
}

/** A WebAuthn challenge waiting for its answer, spent once (migration 024). */
export interface PasskeyChallengeTable {
  /** sha256 of the challenge (base64url). */
  id: string;
  purpose: string;
  user_id: number | null;
  /** sha256 of what the challenge is bound to (a session id or a browser cookie), or null. */
  binding: string | null;
  expires: string;
}

export interface TerraformStateTable {
  id: Generated<number>;
  project_id: number;
  inventory_id: number;
  task_id: number | null;
  status: string;
  /** Sealed with the SecretBox. */
  state: string;
  created: string;
  serial: number | null;
  lineage: string | null;
  resource_count: number | null;
  /** The alias that wrote it through the HTTP backend (null: a task, or a local-backend run). */
  writer_alias: string | null;
}

/** A backend address of a workspace: a key's login/password opens it, or a running task's one-time password. */
export interface TerraformAliasTable {
  id: string;
  project_id: number;
  inventory_id: number;
  auth_key_id: number | null;
  task_id: number | null;
  /** A task's one-time password, sealed with the SecretBox. */
  secret: string | null;
  created: string;
}

/** The lock of a workspace's state (one at most); `task_id` when a task holds it for its run. */
export interface TerraformLockTable {
  inventory_id: number;
  project_id: number;
  lock_id: string;
  /** The lock information (JSON) terraform sent, answered with 423 to the next one. */
  info: string;
  task_id: number | null;
  created: string;
}

/** A workspace whose tasks keep their state in Gantry's HTTP backend. */
export interface TerraformBackendTable {
  inventory_id: number;
  project_id: number;
  created: string;
}

/** An external user's identity at a sign-in provider: (provider, issuer, subject) is unique. */
export interface ExternalIdentityTable {
  id: Generated<number>;
  /** The provider's id in GANTRY_OIDC_PROVIDERS. */
  provider: string;
  /** The id_token's `iss`. */
  issuer: string;
  /** The id_token's `sub`. */
  subject: string;
  user_id: number;
  created: string;
}

/** A user who signs in against the LDAP directory (migration 023). */
export interface LdapUserTable {
  user_id: number;
  /** Where the entry was found at the last sign-in. */
  dn: string;
  /** The directory's login attribute value: the user filter's `{login}` when looked up again. */
  login: string;
  created: string;
  last_sign_in: string;
}

/** At most one row (id 1): a known text sealed with the master key, opened at every start. */
export interface MasterKeyCheckTable {
  id: number;
  sealed: string;
  created: string;
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

/** One audit trail entry (migration 025): append-only, hash-chained; ids are given by the appender. */
export interface AuditEntryTable {
  id: number;
  time: string;
  actor_id: number | null;
  /** The actor's login when the entry was written: kept when the user is deleted. */
  actor_login: string | null;
  auth_kind: string;
  ip: string | null;
  user_agent: string | null;
  request_id: string | null;
  project_id: number | null;
  object_type: string;
  object_id: string | null;
  action: string;
  /** JSON of the changed fields before the change (secret fields only as "changed"). */
  before: string | null;
  after: string | null;
  prev_hash: string;
  hash: string;
}

/** The audit chain's one row (id 1): its head, the anchor pruning left, when pruning is due. */
export interface AuditChainTable {
  id: number;
  head_id: number;
  head_hash: string;
  anchor_id: number;
  anchor_hash: string;
  prune_due: string;
}

/** An audit export destination's cursor and lease (migration 026). */
export interface AuditExportCursorTable {
  /** `file:<node id>` (each node writes its own file), `syslog` or `webhook`. */
  destination: string;
  /** Where it goes, as shown to admins (no secret: no token, no URL query). */
  target: string;
  /** The id of the last audit entry delivered (or skipped). */
  last_id: number;
  lease_holder: string | null;
  lease_expires: string | null;
  /** Failed deliveries in a row (0 after a success). */
  attempts: ColumnType<number, number | undefined, number>;
  last_error: string | null;
  last_error_time: string | null;
  last_success: string | null;
  /** Entries never delivered: pruned first, or skipped past the pending limit. */
  not_exported: ColumnType<number, number | undefined, number>;
}
