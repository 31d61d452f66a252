import type { PlanSummary, SandboxStatus } from '@gantry/contracts';
import os from 'node:os';
import path from 'node:path';
import type { Config } from './config/config.js';
import type { Db } from './db/db.js';
import { AuthFailuresRepository } from './modules/auth/auth-failures.repository.js';
import { AuthService } from './modules/auth/auth.service.js';
import { LoginThrottle } from './modules/auth/login-throttle.js';
import { SessionsRepository } from './modules/auth/sessions.repository.js';
import { TotpRepository } from './modules/auth/totp.repository.js';
import { TotpService } from './modules/auth/totp.service.js';
import { PasskeysRepository } from './modules/passkeys/passkeys.repository.js';
import { PasskeysService } from './modules/passkeys/passkeys.service.js';
import { AuditRepository } from './modules/audit/audit.repository.js';
import { AuditService } from './modules/audit/audit.service.js';
import type { AuditExportService } from './modules/audit-export/audit-export.service.js';
import { auditTrailReader } from './modules/audit-export/audit-trail-reader.js';
import { createAuditExport } from './modules/audit-export/create-audit-export.js';
import { WakingAuditRepository } from './modules/audit-export/waking-audit-repository.js';
import { runAsCaller } from './modules/audit/audit-context.js';
import { InstanceSettingsRepository } from './modules/security/instance-settings.repository.js';
import { TwoFactorPolicyService } from './modules/security/two-factor-policy.service.js';
import { openidClient } from './modules/auth/oidc-client.js';
import { OidcService } from './modules/auth/oidc.service.js';
import { OidcIdentitiesRepository } from './modules/auth/oidc-identities.repository.js';
import { createChannels, channelSecrets } from './modules/notifications/channels/channels.js';
import { NotificationsRepository } from './modules/notifications/notifications.repository.js';
import { NotificationsService } from './modules/notifications/notifications.service.js';
import {
  createNotificationRouting,
  type NotificationRouting,
} from './modules/notification-routing/create-notification-routing.js';
import type { ProjectsService } from './modules/projects/projects.service.js';
import { TokensRepository } from './modules/tokens/tokens.repository.js';
import { TokensService } from './modules/tokens/tokens.service.js';
import { UsersRepository, type UserRow } from './modules/users/users.repository.js';
import { UsersService } from './modules/users/users.service.js';
import type { EnvironmentsService } from './modules/environments/environments.service.js';
import type { EventsService } from './modules/events/events.service.js';
import type { IntegrationRulesService } from './modules/integrations/integration-rules.service.js';
import type { IntegrationsService } from './modules/integrations/integrations.service.js';
import { WebhookDeliveriesRepository } from './modules/integrations/webhook-deliveries.repository.js';
import { WebhookService } from './modules/integrations/webhook.service.js';
import type { InventoriesService } from './modules/inventories/inventories.service.js';
import type { KeysService } from './modules/keys/keys.service.js';
import type { RepositoriesService } from './modules/repositories/repositories.service.js';
import { RunnerProtocolService } from './modules/runners/runner-protocol.service.js';
import { RunnerWakeup } from './modules/runners/runner-wakeup.js';
import { RunnersRepository } from './modules/runners/runners.repository.js';
import { RunnersService } from './modules/runners/runners.service.js';
import { generateRunnerKeyPair } from './platform/envelope.js';
import { TeamRepository } from './modules/team/team.repository.js';
import { TeamService } from './modules/team/team.service.js';
import { MappingsRepository } from './modules/identity/mappings.repository.js';
import { MappingsService, mappingSources } from './modules/identity/mappings.service.js';
import { ldaptsClient } from './modules/ldap/ldap-client.js';
import { LdapDirectory } from './modules/ldap/ldap-directory.js';
import { LdapUsersRepository } from './modules/ldap/ldap-users.repository.js';
import { LdapService } from './modules/ldap/ldap.service.js';
import { SecretBox } from './platform/crypto.js';
import { resolveNodeId } from './config/node-id.js';
import { CheckoutCache } from './engine/checkout-cache.js';
import { Dispatcher } from './engine/dispatcher.js';
import { Drain } from './engine/drain.js';
import { fencedRunStore } from './engine/fencing.js';
import { removeLeftovers } from './engine/leftovers.js';
import { spreadTaskFolders } from './engine/task-dir-spread.js';
import { LocalRuns } from './engine/local-runs.js';
import { TaskOutputRepository } from './modules/tasks/task-output.repository.js';
import { TaskOutputService } from './modules/tasks/task-output.service.js';
import { createProcessLauncher, type ProcessLauncher } from './engine/process.js';
import { serverTaskSandbox, type TaskSandbox } from './engine/sandbox.js';
import { TaskRun } from './engine/runner.js';
import { templateIdList } from './db/template-lists.js';
import type { DriftResult } from './engine/executor.js';
import { LogRetryBuffer } from './engine/log-retry-buffer.js';
import { loadRunContext } from './engine/run-context.js';
import { TerraformStateStore } from './engine/terraform-state.js';
import { TerraformStatesRepository } from './modules/terraform-states/terraform-states.repository.js';
import { TerraformStatesService } from './modules/terraform-states/terraform-states.service.js';
import { TerraformPlansRepository } from './modules/terraform-plans/terraform-plans.repository.js';
import { TERRAFORM_APPS, TerraformPlansService } from './modules/terraform-plans/terraform-plans.service.js';
import { driftWorkspace } from './modules/terraform-plans/drift-workspace.js';
import { TerraformAliasesService } from './modules/terraform-backend/terraform-aliases.service.js';
import { TerraformBackendRepository } from './modules/terraform-backend/terraform-backend.repository.js';
import { TerraformBackendService } from './modules/terraform-backend/terraform-backend.service.js';
import { SelfUrl } from './platform/self-url.js';
import { createDemoRepository } from './engine/demo-repo.js';
import { seedDemoProject } from './modules/projects/demo-seeder.js';
import { Scheduler } from './engine/scheduler.js';
import type { SchedulesService } from './modules/schedules/schedules.service.js';
import { scheduleTaskParams } from './modules/schedules/schedules.presenter.js';
import { AppsRepository } from './modules/apps/apps.repository.js';
import { AppsService } from './modules/apps/apps.service.js';
import { pathExecutableFinder } from './modules/apps/executable-finder.js';
import { TasksRepository } from './modules/tasks/tasks.repository.js';
import { TasksService } from './modules/tasks/tasks.service.js';
import { ApprovalLinkSigner } from './modules/approvals/approval-link.js';
import { channelApprovalNotifier } from './modules/approvals/approval-notifier.js';
import { ApprovalsRepository } from './modules/approvals/approvals.repository.js';
import { ApprovalsService } from './modules/approvals/approvals.service.js';
import type { TemplatesService } from './modules/templates/templates.service.js';
import type { ViewsService } from './modules/views/views.service.js';
import { BackupService } from './modules/backup/backup.service.js';
import { restoreUnit } from './modules/backup/backup.transaction.js';
import { createResourceServices } from './resource-services.js';
import type { WorkflowsService } from './modules/workflows/workflows.service.js';
import { createWorkflowRuns } from './modules/workflow-runs/create-workflow-runs.js';
import type { WorkflowDriver } from './modules/workflow-runs/workflow-driver.js';
import type { WorkflowRunsService } from './modules/workflow-runs/workflow-runs.service.js';
import { ProjectCacheRepository } from './modules/backup/project-cache.repository.js';
import { ProjectCacheService } from './modules/backup/project-cache.service.js';
import { taskWorkspaceStore } from './engine/workspace.js';
import { InventoryLister } from './engine/inventory-list.js';
import { InventoryListingService } from './modules/inventories/inventory-listing.js';
import { readUrlInventory } from './modules/inventories/url-inventory.js';
import { HostsRepository } from './modules/hosts/hosts.repository.js';
import { HostsService } from './modules/hosts/hosts.service.js';
import { SurveyOptionsService } from './modules/survey-options/survey-options.service.js';
import { presentTemplate } from './modules/templates/templates.presenter.js';
import { safeFetch } from './platform/safe-fetch.js';
import { EventBus } from './realtime/bus.js';
import { deriveBusKeys } from './realtime/bus-auth.js';
import { PgEventBus } from './realtime/pg-bus.js';
import { StoredControls } from './realtime/stored-controls.js';
import { LocalPathPolicy } from './platform/local-paths.js';
import { ClusterService } from './modules/cluster/cluster.service.js';
import { NodesRepository } from './modules/cluster/nodes.repository.js';
import { systemClock, type Clock } from './platform/clock.js';

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

/** Wires repositories and services (the composition root); buildApp in app.ts adds the routes. */
export function createServices({
  config,
  db,
  secretKey,
  clock = systemClock,
  sleep,
  sandbox = serverTaskSandbox(config),
  launcher = createProcessLauncher(sandbox),
  nodeId,
  notificationSweepMs,
}: AppDeps): Services {
  const node = nodeId ?? resolveNodeId(config.dataDir);
  // In the data folder, which no task sees.
  const checkoutCache = CheckoutCache.forNode(path.join(config.dataDir, 'checkouts'), config.checkoutCacheEntries);
  // Several nodes may share a PostgreSQL database: the bus reaches them all. SQLite has one node.
  const outputRepo = new TaskOutputRepository(db);
  const tasksRepo = new TasksRepository(db.db, outputRepo, db.engine);
  const bus: EventBus =
    db.engine === 'postgres'
      ? new PgEventBus({
          url: config.dbUrl,
          nodeId: node,
          // Other roles on the database server can NOTIFY too: messages are signed with a key of their own.
          keys: deriveBusKeys(secretKey),
          readLines: (taskId, fromSeq, toSeq, limit) => outputRepo.page(taskId, { fromSeq, toSeq, limit }),
          readTask: (id) => tasksRepo.findById(id),
          lastSeq: (id) => outputRepo.lastSeq(id),
          onError: (message) => process.stderr.write(`${message}\n`),
          onDrop: ['debug', 'trace'].includes(config.logLevel)
            ? (reason) => process.stderr.write(`bus: dropped a message (${reason})\n`)
            : undefined,
        })
      : new EventBus();
  const box = new SecretBox(secretKey);
  // GANTRY_ALLOWED_LOCAL_PATHS: checked when repositories and inventories are saved and when runs start.
  const localPaths = new LocalPathPolicy({
    allowed: config.allowedLocalPaths,
    dataDir: config.dataDir,
    taskDir: config.taskDir,
  });
  const resourceDeps = { box, clock, nonAdminCanCreateProject: config.nonAdminCanCreateProject, localPaths };
  // Apps live outside the resource services; templates ask them lazily, once both exist.
  const resources = createResourceServices(db.db, { ...resourceDeps, appExists: (id) => apps.exists(id) });
  const {
    events,
    refs,
    projects,
    keys,
    repositories,
    inventories,
    environments,
    views,
    templates,
    schedulesRepo,
    schedules,
    integrationsRepo,
    integrations,
    integrationRules,
    workflows,
  } = resources;
  const users = new UsersService(new UsersRepository(db.db), clock, bus);
  // A project's owners read its entries: their role comes from the project's members.
  // Export to a SIEM reads the trail from the database; recording an entry only wakes it.
  const auditExport = createAuditExport({
    config: config.auditExport,
    db: db.db,
    trail: auditTrailReader(new AuditRepository(db.db)),
    recorder: { record: (r) => audit.record(r) },
    clock,
    nodeId: node,
    log: (_level, line) => void (config.logLevel !== 'silent' && process.stderr.write(`${line}\n`)),
  });
  const audit = new AuditService(
    new WakingAuditRepository(db.db, () => auditExport.wake()),
    clock,
    async (projectId, userId) => (await projects.membership(projectId, userId)).role,
  );
  const throttle = new LoginThrottle(new AuthFailuresRepository(db.db), events, clock, sleep);
  const totp = new TotpService(new TotpRepository(db.db), users, box, events, clock, config.totp, throttle);
  const passkeysRepo = new PasskeysRepository(db.db);
  // A passkey is a second factor too: a user with one answers the second step with it or a code.
  const secondFactor = {
    required: async (user: UserRow) => totp.required(user) || (await passkeysRepo.hasAny(user.id)),
    checkCode: (userId: number, passcode: string) => totp.checkCode(userId, passcode),
    useRecoveryCode: (user: UserRow, code: string) => totp.useRecoveryCode(user, code),
    methods: async (user: UserRow) => ({
      totp: totp.required(user),
      passkey: await passkeysRepo.hasAny(user.id),
      // The recovery code stands in for the app's code only, and only where the server allows it.
      recovery: totp.required(user) && config.totp.allowRecovery,
    }),
  };
  const auth = new AuthService(users, new SessionsRepository(db.db), throttle, secondFactor, clock, bus);
  const passkeys = new PasskeysService(
    passkeysRepo,
    users,
    auth,
    events,
    clock,
    throttle,
    config.webHost,
    (userId, code) => totp.checkCode(userId, code),
  );
  const twoFactorPolicy = new TwoFactorPolicyService(new InstanceSettingsRepository(db.db), events, clock, {
    totpEnabled: config.totp.enabled,
    fixed: config.totp.required,
  });
  twoFactorPolicy.hasPasskey = (userId) => passkeysRepo.hasAny(userId);
  const identityMappings = new MappingsService(
    new MappingsRepository(db.db),
    users,
    events,
    clock,
    bus,
    mappingSources(config.oidcProviders),
  );
  const oidc = new OidcService(
    config.oidcProviders,
    openidClient(),
    users,
    new OidcIdentitiesRepository(db.db),
    auth,
    events,
    box,
    clock,
    identityMappings,
  );
  // LDAP: logins that are not a local user's are checked against the directory; its groups go to the mappings.
  const usersRepo = new UsersRepository(db.db);
  const ldap = config.ldap
    ? new LdapService({
        directory: new LdapDirectory(config.ldap, ldaptsClient(config.ldap)),
        repo: new LdapUsersRepository(db.db),
        users,
        groups: identityMappings,
        events,
        clock,
        // As when a password changes: sessions deleted, tokens expired, sockets closed.
        revoke: async (id) => {
          await usersRepo.update(id, {}, {});
          bus.userChanged(id);
        },
        log: (line) => void (config.logLevel !== 'silent' && process.stderr.write(`${line}\n`)),
        ownMfa: config.ldapOwnMfa,
      })
    : undefined;
  auth.directory = ldap;
  // The audit trail hears of users, sign-ins and lockouts, tokens, teams and projects from their services.
  users.audit = audit;
  auth.audit = audit;
  throttle.audit = audit;
  const tokens = new TokensService(new TokensRepository(db.db), clock, bus);
  const team = new TeamService(new TeamRepository(db.db), users, events, clock, bus);
  tokens.audit = audit;
  team.audit = audit;
  projects.audit = audit;
  const apps = new AppsService(new AppsRepository(db.db), refs, events, clock, pathExecutableFinder(config.systemPath));
  projects.seedDemo = (actor, projectId) =>
    seedDemoProject(
      {
        keys,
        repositories,
        environments,
        inventories,
        templates,
        createRepository: (id) => createDemoRepository(path.join(config.dataDir, 'demo'), id, config.systemPath),
      },
      actor,
      projectId,
    );
  const taskOutput = new TaskOutputService(tasksRepo, outputRepo, clock);
  // The local state kept between runs is sealed with the master key, as state versions are
  // (base64 inside: SecretBox seals text, a state file is bytes and comes back exactly).
  const terraformState = new TerraformStateStore(path.join(config.dataDir, 'terraform'), config.maxStateBytes, {
    sealer: {
      seal: (plain) => Buffer.from(box.seal(plain.toString('base64')), 'utf8'),
      open: (sealed) => Buffer.from(box.open(sealed.toString('utf8')), 'base64'),
    },
  });
  const terraformStates = new TerraformStatesService(
    new TerraformStatesRepository(db.db),
    inventories,
    box,
    clock,
    events,
  );
  // Gantry's Terraform HTTP state backend; this node's tasks reach it at its own address.
  const terraformBackendRepo = new TerraformBackendRepository(db.db);
  const terraformBackend = new TerraformBackendService({
    repo: terraformBackendRepo,
    states: terraformStates,
    keys,
    box,
    clock,
    throttle,
  });
  const terraformAliases = new TerraformAliasesService(terraformBackendRepo, inventories, keys, events, clock);
  const selfUrl = new SelfUrl(config.webHost);
  const tasks = new TasksService(tasksRepo, templates, inventories, box, bus, events, clock, node, apps, environments);
  const notifications = new NotificationsService(
    new NotificationsRepository(db.db),
    createChannels(config.notifications),
    events,
    config.webHost,
    channelSecrets(config.notifications),
  );
  tasks.endedOutsideRun = (t) => notifications.dispatch(t);
  // Terraform governance: plans and drift, reached by tasks, inventories, templates and notifications through ports.
  const terraformPlans = new TerraformPlansService(new TerraformPlansRepository(db.db), clock);
  tasks.checkParams = (template, params) => {
    if (params.drift_check) terraformPlans.checkDriftTemplate(template.app);
  };
  tasks.driftInventory = async (projectId, template, given) =>
    driftWorkspace(template, await inventories.get(projectId, given).catch(() => null), 'inventory_id');
  tasks.confirmGuard = (projectId, id, actor) =>
    actor
      ? terraformPlans.checkConfirm(projectId, id, { id: actor.id, admin: actor.admin, role: actor.role })
      : Promise.resolve();
  tasks.onConfirmed = (_projectId, id, actor) => terraformPlans.confirmed(id, actor?.id ?? null);
  tasks.taskExtras = async (projectId, id, app) =>
    TERRAFORM_APPS.includes(app) ? terraformPlans.taskExtras(projectId, id) : {};
  inventories.driftOf = (projectId, ids) => terraformPlans.driftOfInventories(projectId, ids);
  templates.driftOf = (projectId, ids) => terraformPlans.driftOfTemplates(projectId, ids);
  notifications.planOf = async (taskId) => {
    const task = await tasksRepo.findById(taskId);
    return task ? (await terraformPlans.taskExtras(task.project_id, taskId)).plan_summary : null;
  };
  // Notification routing: every task event, drift finding and approval the instance channels hear reaches it too.
  const notificationRouting = createNotificationRouting({
    db: db.db,
    box,
    clock,
    events,
    nodeId: node,
    webHost: config.webHost,
    allowedHosts: config.fetchAllowedHosts,
    email: config.notifications.email,
    runnerTimeoutMs: config.runnerTimeoutSeconds * 1000,
    planOf: (taskId) => notifications.planOf(taskId),
    sweepIntervalMs: notificationSweepMs,
    log: (line) => void (config.logLevel !== 'silent' && process.stderr.write(`${line}\n`)),
  });
  notifications.onEvent = notificationRouting.onEvent;
  notificationRouting.destinations.audit = audit;
  notificationRouting.rules.audit = audit;
  // Workflow runs: their nodes' tasks are started as the run's user (with their project role), as a console start would.
  const {
    service: workflowRuns,
    driver: workflowDriver,
    repo: workflowRunsRepo,
  } = createWorkflowRuns({
    db: db.db,
    workflows,
    tasks,
    events,
    bus,
    clock,
    nodeId: node,
    actorFor: async (projectId, userId) => {
      if (userId === null) return null;
      const user = await users.findById(userId);
      return user
        ? { id: user.id, admin: user.admin === 1, role: (await projects.membership(projectId, userId)).role }
        : null;
    },
    log: (line) => void (config.logLevel !== 'silent' && process.stderr.write(`${line}\n`)),
  });
  workflowRuns.audit = audit;
  templates.usedByWorkflow = (projectId, id) => workflowRunsRepo.workflowNamingTemplate(projectId, id);
  tasks.audit = audit;
  // Approvals: workflow approval nodes and tasks held by their template's policy; links signed with a key of their own.
  const approvalsRepo = new ApprovalsRepository(db.db);
  const approvals = new ApprovalsService(approvalsRepo, new ApprovalLinkSigner(secretKey), events, clock);
  approvals.audit = audit;
  approvals.tasks = tasks;
  tasks.approvals = approvals;
  workflowDriver.approvals = approvals;
  // A decided node approval: the driver looks at its runs again now rather than at its next recheck.
  approvals.onDecided(
    (a) => void (a.workflow_run_id !== null && workflowDriver.wake(a.workflow_run_id).catch(() => undefined)),
  );
  approvals.notifier = channelApprovalNotifier({
    repo: approvalsRepo,
    notifications,
    webHost: config.webHost,
    linkToken: (a, userId) => approvals.linkToken(a, userId),
    context: (a) => approvalsRepo.notificationContext(a),
  });
  integrations.audit = audit;
  integrationRules.audit = audit;
  schedules.audit = audit;
  templates.audit = audit;
  views.audit = audit;
  terraformStates.audit = audit;
  terraformBackend.audit = audit;
  terraformAliases.audit = audit;
  apps.audit = audit;
  identityMappings.audit = audit;
  twoFactorPolicy.audit = audit;
  passkeys.audit = audit;
  totp.audit = audit;
  // This process's runs: the dispatcher tracks them, the drain and the cluster's fence stop them.
  const runs = new LocalRuns();
  const runnerDeps = {
    nodeId: node,
    runs,
    // A run needs the template and its vaults, not its newest task or drift (get() reads those
    // for the API: a query over the template's tasks that every run paid, growing with the history).
    templates: { get: (projectId: number, id: number) => templates.getForTask(projectId, id) },
    repositories,
    inventories,
    environments,
    keys,
    box,
    localPaths,
    // What a run is told of its task (semaphore_vars, SEMAPHORE_TASK_*): its author and its link.
    authors: {
      get: async (projectId: number, userId: number) => {
        const user = await users.findById(userId);
        return user
          ? {
              username: user.username,
              admin: user.admin === 1,
              role: (await projects.membership(projectId, userId)).role,
            }
          : null;
      },
    },
    webHost: config.webHost,
    // URL inventories are fetched by the server (never a runner); file and URL reads are recorded.
    inventoryReads: {
      fetchUrl: (url: string) => readUrlInventory(url, config.fetchAllowedHosts),
      record: (projectId: number, id: number, error: string | null) => inventories.recordRead(projectId, id, error),
    },
    // A run's lines and final status are stored only while its task is this node's (fencing.ts).
    tasks: fencedRunStore(tasksRepo, outputRepo, node, runs),
    bus,
    clock,
    launcher,
    sandbox,
    workRoot: config.taskDir,
    knownHostsDir: path.join(config.dataDir, 'known_hosts'),
    checkoutCache,
    terraformState,
    terraformBackend,
    serverUrl: () => selfUrl.get(),
    systemPath: config.systemPath,
    apps,
    maxLogLines: config.maxTaskLogLines,
    logRetryBuffer: new LogRetryBuffer(config.logRetryBufferBytes),
    onFinished: (t: Parameters<TasksService['finished']>[0]) => {
      // The task's state backend session ends with it (its address stops, its lock goes).
      void terraformBackend.closeSession(t.id).catch(() => undefined);
      // Failed by another node while this one was declared dead: that node told everyone already.
      if (runs.isLost(t.id)) return Promise.resolve();
      notifications.dispatch(t);
      // The hosts of its PLAY RECAP first: whoever sees the task ended finds them in the hosts view.
      return hosts.recordTask(t).then(() => tasks.finished(t));
    },
    onWaitingConfirmation: (t: Parameters<TasksService['finished']>[0]) => notifications.dispatch(t),
    // The plan is stored before confirmation is offered; a drift check's finding once its plan ended.
    onPlanSummary: (t: Parameters<TasksService['finished']>[0], inventoryId: number | null, summary: PlanSummary) =>
      terraformPlans.recordPlan(t, inventoryId, summary),
    onDrift: async (t: Parameters<TasksService['finished']>[0], inventoryId: number | null, r: DriftResult) => {
      if (!(await terraformPlans.recordDrift(t, inventoryId, r))) return;
      const workspace =
        inventoryId === null
          ? null
          : await inventories.get(t.project_id, inventoryId).then(
              (i) => i.name,
              () => null,
            );
      notifications.driftFound(t.id, workspace, r.summary);
    },
    // Gantry stores the state a run left: its entry is not the request that happened to start the run.
    onTerraformState: (t: Parameters<TasksService['finished']>[0], inventoryId: number, state: string) =>
      runAsCaller({ authKind: 'system' }, () =>
        terraformStates.record({ projectId: t.project_id, inventoryId, taskId: t.id, status: t.status, state }),
      ),
  };
  // The workspace inventory a run uses, as the run context picks it: the task's inventory, else the template's first.
  const runWorkspace = async (t: Parameters<TasksService['finished']>[0]): Promise<number | null> => {
    const template = await templates.getForTask(t.project_id, t.template_id).catch(() => null);
    const id =
      t.inventory_id ?? (template ? templateIdList(template.inventory_id, template.inventory_ids)[0] : undefined);
    if (!id) return null;
    const inv = await inventories.get(t.project_id, id).catch(() => null);
    return inv?.type.endsWith('-workspace') ? inv.id : null;
  };
  const dispatcher = new Dispatcher(
    tasksRepo,
    bus,
    clock,
    node,
    config.maxParallelTasks,
    async (id) => {
      const task = await tasksRepo.findById(id);
      if (task) await new TaskRun(runnerDeps, task).run();
    },
    runs,
  );
  const drain = new Drain({
    stopClaiming: () => dispatcher.close(),
    runs,
    timeoutMs: config.shutdownTimeoutSeconds * 1000,
    say: (line) => process.stderr.write(`${line}\n`),
  });
  // With remote runners every task waits for a runner whose tag matches: this node claims none.
  if (config.useRemoteRunner) dispatcher.close();
  // After the bus lost the other nodes for a while: re-read the queue. Stop, confirm and reject
  // requests for this node's tasks made meanwhile are read from their rows, also while it is away.
  bus.onReconnect(() => dispatcher.kick());
  new StoredControls({ bus, runningIds: () => dispatcher.runningIds(), readTask: (id) => tasksRepo.findById(id) });
  const nodesRepo = new NodesRepository(db.db);
  const cluster = new ClusterService({
    nodes: nodesRepo,
    clock,
    nodeId: node,
    address: config.nodeAddress ?? `${os.hostname()}:${config.port}`,
    version: config.version,
    timeoutSeconds: config.nodeTimeoutSeconds,
    failNode: (id) => tasks.failDeadNode(id),
    kick: () => bus.kick(),
    onReaped: (id, failed) =>
      process.stderr.write(`Node ${id} stopped answering: ${failed} of its task(s) were failed\n`),
    fence: {
      runningIds: () => runs.ids(),
      kill: (ids, line) => ids.forEach((id) => runs.kill(id, line)),
    },
    onFenced: (killed) =>
      process.stderr.write(
        `This node was declared dead by the other nodes (no heartbeat for ${config.nodeTimeoutSeconds} s): ${killed} of its task(s), failed by them, were killed here; it joined the cluster again\n`,
      ),
  });
  const leftovers = () =>
    removeLeftovers({
      workRoot: config.taskDir,
      activeElsewhere: (ids) => nodesRepo.activeElsewhere(ids, node),
      runningHere: (id) => runs.has(id),
    });
  const runnersRepo = new RunnersRepository(db.db);
  const runners = new RunnersService(runnersRepo, events, clock, generateRunnerKeyPair);
  runners.audit = audit;
  const runnerProtocol = new RunnerProtocolService({
    runners: runnersRepo,
    tasks: tasksRepo,
    loadContext: (task) => loadRunContext(runnerDeps, task),
    apps,
    bus,
    events,
    clock,
    enabled: config.useRemoteRunner,
    timeoutMs: config.runnerTimeoutSeconds * 1000,
    onFinished: runnerDeps.onFinished,
    onWaitingConfirmation: runnerDeps.onWaitingConfirmation,
    // A runner's plan and drift reports, filed under the workspace its run used (as a local run's).
    onPlanSummary: async (t, summary) => runnerDeps.onPlanSummary(t, await runWorkspace(t), summary),
    onDrift: async (t, r) => runnerDeps.onDrift(t, await runWorkspace(t), r),
  });
  tasks.stopRequested = (id, force) => runnerProtocol.stopRequested(id, force);
  if (config.useRemoteRunner) {
    const wakeup = new RunnerWakeup(runnersRepo, events);
    bus.onMessage((m) => {
      if (m.type === 'update' && m.status === 'waiting' && m.template_id !== null)
        void wakeup
          .taskWaiting({ task_id: m.task_id, project_id: m.project_id, template_id: m.template_id })
          .catch(() => undefined);
    });
  }
  const scheduler = new Scheduler({
    schedules: schedulesRepo,
    repositories,
    keys,
    launcher,
    clock,
    workRoot: config.taskDir,
    taskOwner: sandbox.taskOwner,
    knownHostsDir: path.join(config.dataDir, 'known_hosts'),
    systemPath: config.systemPath,
    localPaths,
    fire: async (s, commitHash) => {
      const stored = scheduleTaskParams(s.task_params);
      // A drift check schedule plans only: its task carries params.drift_check (never applied).
      const drift = s.type === 'drift_check';
      await tasks.create(
        null,
        s.project_id,
        {
          template_id: s.template_id!,
          message: drift ? `Drift check (schedule ${s.name})` : `Schedule ${s.name}`,
          commit_hash: commitHash,
          // The schedule's answers to the template's parameters, checked again as the task starts.
          environment: stored?.environment ?? '{}',
          secret: '{}',
          params: drift ? { drift_check: { refresh_only: stored?.refresh_only ?? false } } : {},
          // A drift check's workspace (checked again as the task is made); none: the template's.
          ...(drift && stored?.inventory_id ? { inventory_id: stored.inventory_id } : {}),
        },
        { scheduleId: s.id },
      );
    },
    fireWorkflow: async (s) => {
      await workflowRuns.start(null, s.project_id, s.workflow_id, { scheduleId: s.id });
    },
    onError: (s, err) =>
      events
        .record({
          projectId: s.project_id,
          userId: null,
          objectType: 'schedule',
          objectId: s.id,
          description: `Schedule ${s.name} could not run: ${(err as Error).message}`,
        })
        .catch(() => undefined),
  });
  const webhooks = new WebhookService(
    integrationsRepo,
    keys,
    tasks,
    events,
    new WebhookDeliveriesRepository(db.db),
    clock,
  );
  webhooks.workflows = workflowRuns;
  const backup = new BackupService(
    {
      projects,
      keys,
      repositories,
      inventories,
      environments,
      views,
      templates,
      schedules,
      integrations,
      integrationRules,
      workflows,
      events,
    },
    restoreUnit(db.db, (trx, appExists) =>
      createResourceServices(trx, { ...resourceDeps, appExists: async (id) => appExists(id) }),
    ),
    (id) => apps.exists(id),
    clock,
  );
  const projectCache = new ProjectCacheService(
    new ProjectCacheRepository(db.db),
    taskWorkspaceStore(config.taskDir),
    events,
    checkoutCache,
  );
  backup.audit = audit;
  projectCache.audit = audit;
  const inventoryListing = new InventoryListingService({
    inventories,
    repositories,
    templates,
    keys,
    localPaths,
    lister: new InventoryLister({
      launcher,
      workRoot: config.taskDir,
      knownHostsDir: path.join(config.dataDir, 'known_hosts'),
      systemPath: config.systemPath,
      taskOwner: sandbox.taskOwner,
    }),
    allowedHosts: config.fetchAllowedHosts,
  });
  // Dynamic options of choice parameters: the run dialog reads them, a task start checks its answers against them.
  const surveyOptions = new SurveyOptionsService({
    template: async (projectId, id) => presentTemplate(await templates.getForTask(projectId, id)),
    inventoryExists: (projectId, id) =>
      inventories.get(projectId, id).then(
        () => true,
        () => false,
      ),
    listInventory: (projectId, id, templateId) => inventoryListing.list(projectId, id, templateId),
    fetch: (url, opts) => safeFetch(url, { ...opts, allowedHosts: config.fetchAllowedHosts }),
    clock,
  });
  tasks.checkDynamicOption = (projectId, template, inventoryId) =>
    surveyOptions.checker(projectId, template, inventoryId);
  const hosts = new HostsService({
    repo: new HostsRepository(db.db),
    inventories,
    listing: inventoryListing,
    clock,
    projectSecrets: async (projectId) => {
      const [groups, keyList] = await Promise.all([environments.list(projectId), keys.list(projectId)]);
      const values = await Promise.all([
        ...groups.map(async (g) => (await environments.secretValues(projectId, g.id)).map((v) => v.value)),
        ...keyList.map(async (k) => {
          const secret = await keys.secretOf(projectId, k.id);
          if (secret?.type === 'login_password') return [secret.password];
          return secret?.type === 'ssh' ? [secret.passphrase] : [];
        }),
      ]);
      return values.flat().filter(Boolean);
    },
  });
  const sandboxReport = () => sandbox.report(launcher);
  return {
    approvals,
    workflows,
    workflowRuns,
    workflowDriver,
    audit,
    auditExport,
    drain,
    removeLeftovers: leftovers,
    spreadTaskFolders: () => spreadTaskFolders(launcher, config.taskDir, config.systemPath),
    sandboxReport,
    cluster,
    users,
    auth,
    totp,
    passkeys,
    twoFactorPolicy,
    oidc,
    tokens,
    projects,
    events,
    keys,
    repositories,
    inventories,
    inventoryListing,
    hosts,
    surveyOptions,
    environments,
    team,
    identityMappings,
    ldap,
    templates,
    views,
    tasks,
    taskOutput,
    notifications,
    notificationRouting,
    apps,
    bus,
    dispatcher,
    terraformState,
    terraformStates,
    terraformBackend,
    terraformAliases,
    terraformPlans,
    selfUrl,
    schedules,
    scheduler,
    integrations,
    integrationRules,
    webhooks,
    backup,
    projectCache,
    runners,
    runnerProtocol,
    sandbox,
  };
}
