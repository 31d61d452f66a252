import type { ApprovalLinkUseTable, ApprovalTable, ApprovalVoteTable } from './tables/approval.js';
import type { AuditChainTable, AuditEntryTable, AuditExportCursorTable, EventTable } from './tables/audit.js';
import type { AppTable, NodeTable, RunnerTable } from './tables/cluster-runners.js';
import type {
  ExternalIdentityTable,
  IdentityAdminGrantTable,
  IdentityMappingTable,
  LdapUserTable,
} from './tables/identity.js';
import type { InstanceSettingTable, MasterKeyCheckTable } from './tables/instance.js';
import type {
  NotificationDeliveryTable,
  NotificationDestinationTable,
  NotificationRuleTable,
} from './tables/notification-routing.js';
import type {
  AccessKeyTable,
  EnvironmentSecretTable,
  EnvironmentTable,
  InventoryTable,
  ProjectTable,
  ProjectUserTable,
  RepositoryTable,
  ViewTable,
} from './tables/projects-resources.js';
import type {
  IntegrationAliasTable,
  IntegrationExtractValueTable,
  IntegrationMatcherTable,
  IntegrationTable,
  ScheduleTable,
  WebhookDeliveryBodyTable,
  WebhookDeliveryTable,
} from './tables/schedules-integrations.js';
import type { TaskHostTable, TaskOutputTable, TaskTable } from './tables/tasks.js';
import type { TemplateTable, TemplateVaultTable } from './tables/templates.js';
import type {
  TerraformAliasTable,
  TerraformBackendTable,
  TerraformDriftTable,
  TerraformLockTable,
  TerraformPlanTable,
  TerraformStateTable,
} from './tables/terraform.js';
import type {
  ApiTokenTable,
  AuthFailureTable,
  PasskeyChallengeTable,
  SessionTable,
  UserPasskeyTable,
  UserTable,
  UserTotpTable,
} from './tables/users-auth.js';
import type { WorkflowRunNodeTable, WorkflowRunTable } from './tables/workflow-run.js';
import type { WorkflowTable } from './tables/workflow.js';

// The table shapes live in ./tables/ by area; these names stay importable from here, as before.
// Every table of these files is part of this module's API (the workflow, approval and notification
// routing tables are not: their modules import them from tables/ themselves).
export type * from './tables/audit.js';
export type * from './tables/cluster-runners.js';
export type * from './tables/identity.js';
export type * from './tables/instance.js';
export type * from './tables/projects-resources.js';
export type * from './tables/schedules-integrations.js';
export type * from './tables/tasks.js';
export type * from './tables/templates.js';
export type * from './tables/terraform.js';
export type * from './tables/users-auth.js';

/**
 * Table shapes. Booleans are stored as integers (0/1) and times as ISO-8601 UTC text on both
 * engines, so one code path serves SQLite and PostgreSQL.
 */
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
