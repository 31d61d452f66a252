import type { SandboxStatus } from '@gantry/contracts';
import type { Config } from './config/config.js';
import type { Db } from './db/db.js';
import type { Dispatcher } from './engine/dispatcher.js';
import type { Drain } from './engine/drain.js';
import type { ProcessLauncher } from './engine/process.js';
import type { TaskSandbox } from './engine/sandbox.js';
import type { Scheduler } from './engine/scheduler.js';
import type { TerraformStateStore } from './engine/terraform-state.js';
import type { AppsService } from './modules/apps/apps.service.js';
import type { ApprovalsService } from './modules/approvals/approvals.service.js';
import type { AuditService } from './modules/audit/audit.service.js';
import type { AuditExportService } from './modules/audit-export/audit-export.service.js';
import type { AuthService } from './modules/auth/auth.service.js';
import type { OidcService } from './modules/auth/oidc.service.js';
import type { TotpService } from './modules/auth/totp.service.js';
import type { BackupService } from './modules/backup/backup.service.js';
import type { ProjectCacheService } from './modules/backup/project-cache.service.js';
import type { ClusterService } from './modules/cluster/cluster.service.js';
import type { EnvironmentsService } from './modules/environments/environments.service.js';
import type { EventsService } from './modules/events/events.service.js';
import type { HostsService } from './modules/hosts/hosts.service.js';
import type { MappingsService } from './modules/identity/mappings.service.js';
import type { IntegrationRulesService } from './modules/integrations/integration-rules.service.js';
import type { IntegrationsService } from './modules/integrations/integrations.service.js';
import type { WebhookService } from './modules/integrations/webhook.service.js';
import type { InventoriesService } from './modules/inventories/inventories.service.js';
import type { InventoryListingService } from './modules/inventories/inventory-listing.js';
import type { KeysService } from './modules/keys/keys.service.js';
import type { LdapService } from './modules/ldap/ldap.service.js';
import type { NotificationRouting } from './modules/notification-routing/create-notification-routing.js';
import type { NotificationsService } from './modules/notifications/notifications.service.js';
import type { PasskeysService } from './modules/passkeys/passkeys.service.js';
import type { ProjectsService } from './modules/projects/projects.service.js';
import type { RepositoriesService } from './modules/repositories/repositories.service.js';
import type { RunnerProtocolService } from './modules/runners/runner-protocol.service.js';
import type { RunnersService } from './modules/runners/runners.service.js';
import type { SchedulesService } from './modules/schedules/schedules.service.js';
import type { TwoFactorPolicyService } from './modules/security/two-factor-policy.service.js';
import type { SurveyOptionsService } from './modules/survey-options/survey-options.service.js';
import type { TaskOutputService } from './modules/tasks/task-output.service.js';
import type { TasksService } from './modules/tasks/tasks.service.js';
import type { TeamService } from './modules/team/team.service.js';
import type { TemplatesService } from './modules/templates/templates.service.js';
import type { TerraformAliasesService } from './modules/terraform-backend/terraform-aliases.service.js';
import type { TerraformBackendService } from './modules/terraform-backend/terraform-backend.service.js';
import type { TerraformPlansService } from './modules/terraform-plans/terraform-plans.service.js';
import type { TerraformStatesService } from './modules/terraform-states/terraform-states.service.js';
import type { TokensService } from './modules/tokens/tokens.service.js';
import type { UsersService } from './modules/users/users.service.js';
import type { ViewsService } from './modules/views/views.service.js';
import type { WorkflowDriver } from './modules/workflow-runs/workflow-driver.js';
import type { WorkflowRunsService } from './modules/workflow-runs/workflow-runs.service.js';
import type { WorkflowsService } from './modules/workflows/workflows.service.js';
import type { Clock } from './platform/clock.js';
import type { SelfUrl } from './platform/self-url.js';
import type { EventBus } from './realtime/bus.js';

export interface AppDeps {
  config: Config;
  db: Db;
  /** Master key (32 bytes) for secrets at rest. */
  secretKey: Buffer;
  clock?: Clock;
  /** Test hook: replaces the sign-in slow-down wait. */
  sleep?: (ms: number) => Promise<void>;
  /** Test hook: how often LDAP users with sessions are looked up in the directory (default 60 s). */
  ldapCheckMs?: number;
  /** Test hook: how task processes are started. */
  launcher?: ProcessLauncher;
  /** Whether and how task processes are sandboxed; defaults to the one GANTRY_TASK_SANDBOX asks for. */
  sandbox?: TaskSandbox;
  /** Identity of this server for its tasks; defaults to the one kept in the data directory. */
  nodeId?: string;
  /** Test hook: how often the notification sweeps look at the database (default 5 s). */
  notificationSweepMs?: number;
}

export interface Services {
  /** The hash-chained audit trail: every change, sign-in and task control is one entry. */
  audit: AuditService;
  /** Export of the audit trail to a SIEM (file, syslog, webhook); started by buildApp. */
  auditExport: AuditExportService;
  cluster: ClusterService;
  users: UsersService;
  auth: AuthService;
  totp: TotpService;
  passkeys: PasskeysService;
  /** Workflows: graphs of templates, approvals and nested workflows (definitions). */
  workflows: WorkflowsService;
  /** Workflow runs: start, read, stop, resume (what the routes, schedules and integrations call). */
  workflowRuns: WorkflowRunsService;
  /** This node's share of driving runs through the database; started and stopped by buildApp. */
  workflowDriver: WorkflowDriver;
  /** The admin's two-factor requirement (off, admins, all). */
  twoFactorPolicy: TwoFactorPolicyService;
  oidc: OidcService;
  tokens: TokensService;
  projects: ProjectsService;
  events: EventsService;
  keys: KeysService;
  repositories: RepositoriesService;
  inventories: InventoriesService;
  /** An inventory's hosts and groups (`ansible-inventory --list` in the sandbox): hosts view, parameter options. */
  inventoryListing: InventoryListingService;
  /** The hosts view and the PLAY RECAP results recorded when Ansible tasks finish. */
  hosts: HostsService;
  /** Options of choice parameters that come from a source (inventory, another parameter, a URL). */
  surveyOptions: SurveyOptionsService;
  environments: EnvironmentsService;
  team: TeamService;
  /** Group to role mapping: rules, and their application at each LDAP or OIDC sign-in. */
  identityMappings: MappingsService;
  /** LDAP / Active Directory sign-in (GANTRY_LDAP_ENABLED); undefined when off. */
  ldap: LdapService | undefined;
  taskOutput: TaskOutputService;
  templates: TemplatesService;
  views: ViewsService;
  tasks: TasksService;
  /** Approvals of workflow nodes and of tasks whose template has an approval policy. */
  approvals: ApprovalsService;
  notifications: NotificationsService;
  /** Notification destinations, rules, the router, its sweeps and delivery worker (started by buildApp). */
  notificationRouting: NotificationRouting;
  apps: AppsService;
  bus: EventBus;
  dispatcher: Dispatcher;
  terraformState: TerraformStateStore;
  terraformStates: TerraformStatesService;
  terraformBackend: TerraformBackendService;
  terraformAliases: TerraformAliasesService;
  /** Plan summaries (policy role, who confirmed) and drift findings of Terraform/OpenTofu tasks. */
  terraformPlans: TerraformPlansService;
  /** How this node's tasks reach its API; told the listening address by buildApp's caller. */
  selfUrl: SelfUrl;
  schedules: SchedulesService;
  scheduler: Scheduler;
  integrations: IntegrationsService;
  integrationRules: IntegrationRulesService;
  webhooks: WebhookService;
  backup: BackupService;
  projectCache: ProjectCacheService;
  runners: RunnersService;
  runnerProtocol: RunnerProtocolService;
  sandbox: TaskSandbox;
  /** The sandbox's status with what a probe process, started as tasks are, measured. */
  sandboxReport: () => Promise<SandboxStatus>;
  /** The graceful stop of this node's tasks (SIGTERM); `drain.active` while it goes on. */
  drain: Drain;
  /** At start-up: removes the task folders (keys included) and ssh-agents a crashed earlier life left. */
  removeLeftovers: () => Promise<{ folders: number; agents: number }>;
  /** At start-up: asks the file system to spread task folders over its groups (see task-dir-spread.ts). */
  spreadTaskFolders: () => Promise<boolean>;
}
