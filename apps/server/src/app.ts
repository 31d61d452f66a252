import fs from 'node:fs';
import path from 'node:path';
import cookie from '@fastify/cookie';
import websocket from '@fastify/websocket';
import fastifyStatic from '@fastify/static';
import swagger from '@fastify/swagger';
import type { AuthMethods } from '@gantry/contracts';
import Fastify, { type FastifyInstance } from 'fastify';
import { jsonSchemaTransform, serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import type { Config } from './config/config.js';
import type { Db } from './db/db.js';
import { AuthFailuresRepository } from './modules/auth/auth-failures.repository.js';
import { authRoutes } from './modules/auth/auth.routes.js';
import { AuthService } from './modules/auth/auth.service.js';
import { LoginThrottle } from './modules/auth/login-throttle.js';
import { SessionsRepository } from './modules/auth/sessions.repository.js';
import { TotpRepository } from './modules/auth/totp.repository.js';
import { totpRoutes } from './modules/auth/totp.routes.js';
import { TotpService } from './modules/auth/totp.service.js';
import { openidClient } from './modules/auth/oidc-client.js';
import { oidcRoutes } from './modules/auth/oidc.routes.js';
import { OidcService } from './modules/auth/oidc.service.js';
import { createChannels, channelSecrets } from './modules/notifications/channels/channels.js';
import { NotificationsRepository } from './modules/notifications/notifications.repository.js';
import { NotificationsService } from './modules/notifications/notifications.service.js';
import { projectsRoutes } from './modules/projects/projects.routes.js';
import type { ProjectsService } from './modules/projects/projects.service.js';
import { systemRoutes } from './modules/system/system.routes.js';
import { TokensRepository } from './modules/tokens/tokens.repository.js';
import { tokensRoutes } from './modules/tokens/tokens.routes.js';
import { TokensService } from './modules/tokens/tokens.service.js';
import { UsersRepository } from './modules/users/users.repository.js';
import { usersRoutes } from './modules/users/users.routes.js';
import { UsersService } from './modules/users/users.service.js';
import { presentEnvironment } from './modules/environments/environments.presenter.js';
import type { EnvironmentsService } from './modules/environments/environments.service.js';
import { eventsRoutes } from './modules/events/events.routes.js';
import type { EventsService } from './modules/events/events.service.js';
import type { IntegrationRulesService } from './modules/integrations/integration-rules.service.js';
import { integrationsRoutes } from './modules/integrations/integrations.routes.js';
import type { IntegrationsService } from './modules/integrations/integrations.service.js';
import { webhookRoutes } from './modules/integrations/webhook.routes.js';
import { WebhookService } from './modules/integrations/webhook.service.js';
import { presentInventory } from './modules/inventories/inventories.presenter.js';
import type { InventoriesService } from './modules/inventories/inventories.service.js';
import { presentKey } from './modules/keys/keys.presenter.js';
import type { KeysService } from './modules/keys/keys.service.js';
import { presentRepository } from './modules/repositories/repositories.presenter.js';
import type { RepositoriesService } from './modules/repositories/repositories.service.js';
import { RunnerProtocolService } from './modules/runners/runner-protocol.service.js';
import { RunnerWakeup } from './modules/runners/runner-wakeup.js';
import { runnerProtocolRoutes } from './modules/runners/runner-protocol.routes.js';
import { RunnersRepository } from './modules/runners/runners.repository.js';
import { runnersRoutes } from './modules/runners/runners.routes.js';
import { RunnersService } from './modules/runners/runners.service.js';
import { generateRunnerKeyPair } from './platform/envelope.js';
import { TeamRepository } from './modules/team/team.repository.js';
import { teamRoutes } from './modules/team/team.routes.js';
import { TeamService } from './modules/team/team.service.js';
import { SecretBox } from './platform/crypto.js';
import { resolveNodeId } from './config/node-id.js';
import { Dispatcher } from './engine/dispatcher.js';
import { nodeProcessLauncher, type ProcessLauncher } from './engine/process.js';
import { TaskRun } from './engine/runner.js';
import { TerraformStateStore } from './engine/terraform-state.js';
import { createDemoRepository } from './engine/demo-repo.js';
import { seedDemoProject } from './modules/projects/demo-seeder.js';
import { Scheduler } from './engine/scheduler.js';
import { presentSchedule } from './modules/schedules/schedules.presenter.js';
import { schedulesExtraRoutes } from './modules/schedules/schedules.routes.js';
import type { SchedulesService } from './modules/schedules/schedules.service.js';
import { StatsRepository } from './modules/stats/stats.repository.js';
import { statsRoutes } from './modules/stats/stats.routes.js';
import { StatsService } from './modules/stats/stats.service.js';
import { appsRoutes } from './modules/apps/apps.routes.js';
import { AppsRepository } from './modules/apps/apps.repository.js';
import { AppsService } from './modules/apps/apps.service.js';
import { pathExecutableFinder } from './modules/apps/executable-finder.js';
import { TasksRepository } from './modules/tasks/tasks.repository.js';
import { tasksRoutes } from './modules/tasks/tasks.routes.js';
import { TasksService } from './modules/tasks/tasks.service.js';
import { templatesExtraRoutes } from './modules/templates/templates.routes.js';
import { presentTemplate } from './modules/templates/templates.presenter.js';
import type { TemplatesService } from './modules/templates/templates.service.js';
import { viewsExtraRoutes } from './modules/views/views.routes.js';
import type { ViewsService } from './modules/views/views.service.js';
import { backupRoutes } from './modules/backup/backup.routes.js';
import { BackupService } from './modules/backup/backup.service.js';
import { restoreUnit } from './modules/backup/backup.transaction.js';
import { createResourceServices } from './resource-services.js';
import { ProjectCacheRepository } from './modules/backup/project-cache.repository.js';
import { ProjectCacheService } from './modules/backup/project-cache.service.js';
import { taskWorkspaceStore } from './engine/workspace.js';
import { EventBus } from './realtime/bus.js';
import { RealtimeHub } from './realtime/hub.js';
import { wsRoutes } from './realtime/ws.routes.js';
import { resourceRoutes } from './platform/resource-routes.js';
import {
  environmentInputSchema,
  environmentSchema,
  inventoryInputSchema,
  inventorySchema,
  keyCreateSchema,
  keySchema,
  keyUpdateSchema,
  repositoryInputSchema,
  repositorySchema,
  scheduleInputSchema,
  scheduleSchema,
  templateInputSchema,
  templateSchema,
  viewInputSchema,
  viewSchema,
} from '@gantry/contracts';
import { registerAuth } from './platform/auth.js';
import { systemClock, type Clock } from './platform/clock.js';
import { registerErrorHandler, registerNotFound } from './platform/error-handler.js';

export interface AppDeps {
  config: Config;
  db: Db;
  /** Master key (32 bytes) for secrets at rest. */
  secretKey: Buffer;
  clock?: Clock;
  /** Test hook: replaces the sign-in slow-down wait. */
  sleep?: (ms: number) => Promise<void>;
  /** Test hook: how task processes are started. */
  launcher?: ProcessLauncher;
  /** Identity of this server for its tasks; defaults to the one kept in the data directory. */
  nodeId?: string;
}

export interface Services {
  users: UsersService;
  auth: AuthService;
  totp: TotpService;
  oidc: OidcService;
  tokens: TokensService;
  projects: ProjectsService;
  events: EventsService;
  keys: KeysService;
  repositories: RepositoriesService;
  inventories: InventoriesService;
  environments: EnvironmentsService;
  team: TeamService;
  templates: TemplatesService;
  views: ViewsService;
  tasks: TasksService;
  notifications: NotificationsService;
  apps: AppsService;
  bus: EventBus;
  dispatcher: Dispatcher;
  terraformState: TerraformStateStore;
  schedules: SchedulesService;
  scheduler: Scheduler;
  integrations: IntegrationsService;
  integrationRules: IntegrationRulesService;
  webhooks: WebhookService;
  backup: BackupService;
  projectCache: ProjectCacheService;
  runners: RunnersService;
  runnerProtocol: RunnerProtocolService;
}

/** Wires repositories, services and routes; never listens (main.ts does). */
export function createServices({ config, db, secretKey, clock = systemClock, sleep, launcher = nodeProcessLauncher, nodeId }: AppDeps): Services {
  const bus = new EventBus();
  const node = nodeId ?? resolveNodeId(config.dataDir);
  const box = new SecretBox(secretKey);
  const resourceDeps = { box, clock, nonAdminCanCreateProject: config.nonAdminCanCreateProject };
  // Apps live outside the resource services; templates ask them lazily, once both exist.
  const resources = createResourceServices(db.db, { ...resourceDeps, appExists: (id) => apps.exists(id) });
  const { events, refs, projects, keys, repositories, inventories, environments, views, templates, schedulesRepo, schedules, integrationsRepo, integrations, integrationRules } = resources;
  const users = new UsersService(new UsersRepository(db.db), clock);
  const throttle = new LoginThrottle(new AuthFailuresRepository(db.db), clock, sleep);
  const totp = new TotpService(new TotpRepository(db.db), users, box, events, clock, config.totp);
  const auth = new AuthService(users, new SessionsRepository(db.db), throttle, totp, clock);
  const oidc = new OidcService(config.oidcProviders, openidClient(), users, auth, events, box, clock);
  const tokens = new TokensService(new TokensRepository(db.db), clock);
  const team = new TeamService(new TeamRepository(db.db), users, events, clock);
  const apps = new AppsService(new AppsRepository(db.db), refs, events, clock, pathExecutableFinder(config.systemPath));
  projects.seedDemo = (actor, projectId) =>
    seedDemoProject(
      { keys, repositories, environments, inventories, templates, createRepository: (id) => createDemoRepository(path.join(config.dataDir, 'demo'), id, config.systemPath) },
      actor,
      projectId,
    );
  const tasksRepo = new TasksRepository(db.db);
  const terraformState = new TerraformStateStore(path.join(config.dataDir, 'terraform'));
  const tasks = new TasksService(tasksRepo, templates, inventories, box, bus, events, clock, node, apps);
  const notifications = new NotificationsService(new NotificationsRepository(db.db), createChannels(config.notifications), events, config.webHost, channelSecrets(config.notifications));
  const runnerDeps = {
    templates,
    repositories,
    inventories,
    environments,
    keys,
    box,
    tasks: tasksRepo,
    bus,
    clock,
    launcher,
    workRoot: path.join(config.dataDir, 'tasks'),
    knownHostsDir: path.join(config.dataDir, 'known_hosts'),
    terraformState,
    systemPath: config.systemPath,
    apps,
    onFinished: (t: Parameters<TasksService['finished']>[0]) => {
      notifications.dispatch(t);
      return tasks.finished(t);
    },
    onWaitingConfirmation: (t: Parameters<TasksService['finished']>[0]) => notifications.dispatch(t),
  };
  const dispatcher = new Dispatcher(tasksRepo, bus, clock, node, config.maxParallelTasks, async (id) => {
    const task = await tasksRepo.findById(id);
    if (task) await new TaskRun(runnerDeps, task).run();
  });
  // With remote runners every task waits for a runner whose tag matches: this node claims none.
  if (config.useRemoteRunner) dispatcher.close();
  const runnersRepo = new RunnersRepository(db.db);
  const runners = new RunnersService(runnersRepo, events, clock, generateRunnerKeyPair);
  const runnerProtocol = new RunnerProtocolService({
    runners: runnersRepo,
    tasks: tasksRepo,
    context: runnerDeps,
    apps,
    bus,
    events,
    clock,
    enabled: config.useRemoteRunner,
    timeoutMs: config.runnerTimeoutSeconds * 1000,
    onFinished: runnerDeps.onFinished,
    onWaitingConfirmation: runnerDeps.onWaitingConfirmation,
  });
  if (config.useRemoteRunner) {
    const wakeup = new RunnerWakeup(runnersRepo, events);
    bus.onMessage((m) => {
      if (m.type === 'update' && m.status === 'waiting' && m.template_id !== undefined) void wakeup.taskWaiting({ task_id: m.task_id, project_id: m.project_id, template_id: m.template_id }).catch(() => undefined);
    });
  }
  const scheduler = new Scheduler({
    schedules: schedulesRepo,
    repositories,
    keys,
    launcher,
    clock,
    workRoot: path.join(config.dataDir, 'tasks'),
    knownHostsDir: path.join(config.dataDir, 'known_hosts'),
    systemPath: config.systemPath,
    fire: async (s, commitHash) => {
      await tasks.create(null, s.project_id, { template_id: s.template_id, message: `Schedule ${s.name}`, commit_hash: commitHash, environment: '{}', secret: '{}', params: {} }, { scheduleId: s.id });
    },
    onError: (s, err) => void events.record({ projectId: s.project_id, userId: null, objectType: 'schedule', objectId: s.id, description: `Schedule ${s.name} could not run: ${(err as Error).message}` }).catch(() => undefined),
  });
  const webhooks = new WebhookService(integrationsRepo, keys, tasks, events);
  const backup = new BackupService(
    { projects, keys, repositories, inventories, environments, views, templates, schedules, integrations, integrationRules, events },
    restoreUnit(db.db, (trx, appExists) => createResourceServices(trx, { ...resourceDeps, appExists: async (id) => appExists(id) })),
    (id) => apps.exists(id),
    clock,
  );
  const projectCache = new ProjectCacheService(new ProjectCacheRepository(db.db), taskWorkspaceStore(path.join(config.dataDir, 'tasks')), events);
  return { users, auth, totp, oidc, tokens, projects, events, keys, repositories, inventories, environments, team, templates, views, tasks, notifications, apps, bus, dispatcher, terraformState, schedules, scheduler, integrations, integrationRules, webhooks, backup, projectCache, runners, runnerProtocol };
}

export type GantryApp = FastifyInstance & { services: Services };

export async function buildApp(deps: AppDeps): Promise<GantryApp> {
  const { config } = deps;
  const app = Fastify({
    logger: config.logLevel === 'silent' ? false : { level: config.logLevel },
    routerOptions: { ignoreTrailingSlash: true },
    bodyLimit: 1024 * 1024,
  });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  registerErrorHandler(app);

  const services = createServices(deps);
  const { totp } = config;
  const authMethods: AuthMethods = { totp: { enabled: totp.enabled, allow_recovery: totp.enabled && totp.allowRecovery } };

  await app.register(cookie);
  await app.register(websocket);
  const hub = new RealtimeHub(services.bus, async (projectId, userId) => (await services.projects.membership(projectId, userId)).role !== null);
  // Runners that stop calling have their tasks failed; every node checks, the database decides who does it.
  const runnerCheckMs = Math.min(15_000, (config.runnerTimeoutSeconds * 1000) / 4);
  const runnerCheck = setInterval(() => void services.runnerProtocol.failSilent().catch((e: unknown) => app.log.error(e)), runnerCheckMs);
  runnerCheck.unref();
  app.addHook('onClose', async () => {
    clearInterval(runnerCheck);
    services.dispatcher.close();
    services.scheduler.stop();
  });
  await app.register(swagger, {
    openapi: { info: { title: 'Gantry API', version: config.version } },
    transform: jsonSchemaTransform,
  });
  registerAuth(
    app,
    {
      fromSession: (v) => services.auth.resolveSession(v),
      fromToken: async (v) => {
        const id = await services.tokens.resolve(v);
        return id === null ? null : ((await services.users.findById(id)) ?? null);
      },
    },
    config.webHost,
  );

  await app.register(
    async (api) => {
      await api.register(systemRoutes({ version: config.version, webHost: config.webHost, authMethods, useRemoteRunner: config.useRemoteRunner }));
      await api.register(
        authRoutes(services.auth, {
          webHost: config.webHost,
          nonAdminCanCreateProject: config.nonAdminCanCreateProject,
          authMethods,
          oidcProviders: services.oidc.list(),
          passwordLoginDisabled: config.passwordLoginDisabled,
        }),
      );
      await api.register(oidcRoutes(services.oidc, { webHost: config.webHost }));
      await api.register(usersRoutes(services.users));
      await api.register(totpRoutes(services.totp));
      await api.register(tokensRoutes(services.tokens));
      await api.register(projectsRoutes(services.projects));
      await api.register(teamRoutes(services.team, services.projects));
      await api.register(wsRoutes(hub));
      await api.register(appsRoutes(services.apps));
      await api.register(runnersRoutes(services.runners, services.projects));
      await api.register(runnerProtocolRoutes(services.runners, services.runnerProtocol));
      await api.register(tasksRoutes(services.tasks, services.projects));
      await api.register(templatesExtraRoutes(services.templates, services.projects, (id) => services.terraformState.summary(id)));
      await api.register(viewsExtraRoutes(services.views, services.projects));
      await api.register(eventsRoutes(services.events, services.projects));
      const members = services.projects;
      await api.register(
        resourceRoutes({
          path: 'keys',
          tag: 'keys',
          members,
          service: services.keys,
          present: presentKey,
          itemSchema: keySchema,
          createSchema: keyCreateSchema,
          updateSchema: keyUpdateSchema,
        }),
      );
      await api.register(
        resourceRoutes({
          path: 'repositories',
          tag: 'repositories',
          members,
          service: services.repositories,
          present: presentRepository,
          itemSchema: repositorySchema,
          createSchema: repositoryInputSchema,
          updateSchema: repositoryInputSchema,
        }),
      );
      await api.register(
        resourceRoutes({
          path: 'inventory',
          tag: 'inventories',
          members,
          service: services.inventories,
          present: presentInventory,
          itemSchema: inventorySchema,
          createSchema: inventoryInputSchema,
          updateSchema: inventoryInputSchema,
        }),
      );
      await api.register(
        resourceRoutes({
          path: 'environment',
          tag: 'environments',
          members,
          service: services.environments,
          present: presentEnvironment,
          itemSchema: environmentSchema,
          createSchema: environmentInputSchema,
          updateSchema: environmentInputSchema,
        }),
      );
      await api.register(
        resourceRoutes({
          path: 'templates',
          tag: 'templates',
          members,
          service: services.templates,
          present: presentTemplate,
          itemSchema: templateSchema,
          createSchema: templateInputSchema,
          updateSchema: templateInputSchema,
        }),
      );
      await api.register(
        resourceRoutes({
          path: 'schedules',
          tag: 'schedules',
          members,
          service: services.schedules,
          present: presentSchedule,
          itemSchema: scheduleSchema,
          createSchema: scheduleInputSchema,
          updateSchema: scheduleInputSchema,
        }),
      );
      await api.register(schedulesExtraRoutes(services.schedules, services.projects));
      await api.register(integrationsRoutes({ integrations: services.integrations, rules: services.integrationRules, members, webHost: config.webHost }));
      await api.register(webhookRoutes(services.webhooks));
      await api.register(backupRoutes(services.backup, services.projectCache, services.projects));
      await api.register(statsRoutes(new StatsService(new StatsRepository(deps.db.db)), services.projects, (p, id) => services.templates.get(p, id)));
      await api.register(
        resourceRoutes({
          path: 'views',
          tag: 'views',
          members,
          service: services.views,
          present: (v) => v,
          itemSchema: viewSchema,
          createSchema: viewInputSchema,
          updateSchema: viewInputSchema,
        }),
      );
    },
    { prefix: '/api' },
  );

  registerNotFound(app, await registerConsole(app, config.webDist));
  return Object.assign(app as FastifyInstance, { services });
}

/** Serves the built console when there is one; answers whether it does. */
async function registerConsole(app: FastifyInstance, webDist: string): Promise<boolean> {
  if (!fs.existsSync(path.join(webDist, 'index.html'))) return false;
  await app.register(fastifyStatic, { root: webDist, prefix: '/', wildcard: false, index: ['index.html'] });
  return true;
}
