import path from 'node:path';
import { createDemoRepository } from './engine/demo-repo.js';
import { createProcessLauncher } from './engine/process.js';
import { serverTaskSandbox } from './engine/sandbox.js';
import { spreadTaskFolders } from './engine/task-dir-spread.js';
import { AppsRepository } from './modules/apps/apps.repository.js';
import { AppsService } from './modules/apps/apps.service.js';
import { pathExecutableFinder } from './modules/apps/executable-finder.js';
import { seedDemoProject } from './modules/projects/demo-seeder.js';
import { TaskOutputService } from './modules/tasks/task-output.service.js';
import { TasksService } from './modules/tasks/tasks.service.js';
import { UsersRepository } from './modules/users/users.repository.js';
import { UsersService } from './modules/users/users.service.js';
import { systemClock } from './platform/clock.js';
import { createResourceServices } from './resource-services.js';
import type { AppDeps, Services } from './services.types.js';
import { createApprovals } from './wiring/approvals.js';
import { createAudit } from './wiring/audit.js';
import { createBackup } from './wiring/backup.js';
import { createCluster } from './wiring/cluster.js';
import { createCore } from './wiring/core.js';
import { createInventoryServices } from './wiring/inventory.js';
import { createNotifications, wireNotificationRouting } from './wiring/notifications.js';
import { createRunners } from './wiring/runners.js';
import { createTaskEngine } from './wiring/task-engine.js';
import { createTerraformStores, wireTerraformPlans } from './wiring/terraform.js';
import { createTriggers } from './wiring/triggers.js';
import { createUserServices } from './wiring/users.js';
import { wireWorkflowRuns } from './wiring/workflows.js';

export type { AppDeps, Services } from './services.types.js';

/**
 * Wires repositories and services (the composition root); buildApp in app.ts adds the routes.
 * Each area is built in wiring/; the order below is the order of construction (some constructors
 * and wiring steps start listeners), and closures here may name services created further down.
 */
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
  const { node, checkoutCache, outputRepo, tasksRepo, bus, box, localPaths } = createCore({
    config,
    db,
    secretKey,
    nodeId,
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
    schedules,
    integrations,
    integrationRules,
    workflows,
  } = resources;
  const users = new UsersService(new UsersRepository(db.db), clock, bus);
  // What most areas below are built from; each also gets the services made before it that it needs.
  const shared = {
    ...resources,
    config,
    db,
    secretKey,
    clock,
    sleep,
    node,
    bus,
    box,
    localPaths,
    launcher,
    sandbox,
    checkoutCache,
    tasksRepo,
    outputRepo,
    notificationSweepMs,
    resources,
    resourceDeps,
    users,
  };
  const { audit, auditExport } = createAudit(shared);
  const { throttle, totp, passkeys, auth, twoFactorPolicy, identityMappings, oidc, ldap, tokens, team } =
    createUserServices({ ...shared, audit });
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
  const { terraformState, terraformStates, terraformBackend, terraformAliases, selfUrl } = createTerraformStores({
    ...shared,
    throttle,
  });
  const tasks = new TasksService(tasksRepo, templates, inventories, box, bus, events, clock, node, apps, environments);
  const notifications = createNotifications({ ...shared, tasks });
  const terraformPlans = wireTerraformPlans({ ...shared, tasks, notifications });
  const notificationRouting = wireNotificationRouting({ ...shared, notifications, audit });
  const { workflowRuns, workflowDriver } = wireWorkflowRuns({ ...shared, tasks, audit });
  tasks.audit = audit;
  const approvals = createApprovals({ ...shared, tasks, workflowDriver, notifications, audit });
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
  const { runs, runnerDeps, runWorkspace, dispatcher, drain } = createTaskEngine({
    ...shared,
    apps,
    tasks,
    notifications,
    terraformState,
    terraformStates,
    terraformBackend,
    terraformPlans,
    selfUrl,
    // The hosts service is created further down; a task ends only once all this is built.
    recordHosts: (t) => hosts.recordTask(t),
  });
  const { cluster, removeLeftovers } = createCluster({ ...shared, runs, tasks });
  const { runners, runnerProtocol } = createRunners({ ...shared, audit, apps, tasks, runnerDeps, runWorkspace });
  const { scheduler, webhooks } = createTriggers({ ...shared, tasks, workflowRuns });
  const { backup, projectCache } = createBackup({ ...shared, apps, audit });
  const { inventoryListing, surveyOptions, hosts } = createInventoryServices({ ...shared, tasks });
  const sandboxReport = () => sandbox.report(launcher);
  return {
    approvals,
    workflows,
    workflowRuns,
    workflowDriver,
    audit,
    auditExport,
    drain,
    removeLeftovers,
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
