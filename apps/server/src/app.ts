import { recordRoutes, type RegisteredRoute } from './platform/route-table.js';
import { openApiDocument, openApiTransform } from './platform/openapi-document.js';
import { registerApiDocs } from './platform/api-docs.js';
import cookie from '@fastify/cookie';
import websocket from '@fastify/websocket';
import swagger from '@fastify/swagger';
import type { AuthMethods } from '@gantry/contracts';
import Fastify, { type FastifyInstance } from 'fastify';
import { jsonSchemaTransform } from 'fastify-type-provider-zod';
import { authRoutes } from './modules/auth/auth.routes.js';
import { totpRoutes } from './modules/auth/totp.routes.js';
import { passkeysRoutes } from './modules/passkeys/passkeys.routes.js';
import { securityRoutes } from './modules/security/security.routes.js';
import { oidcRoutes } from './modules/auth/oidc.routes.js';
import { projectsRoutes } from './modules/projects/projects.routes.js';
import { systemRoutes } from './modules/system/system.routes.js';
import { tokensRoutes } from './modules/tokens/tokens.routes.js';
import { usersRoutes } from './modules/users/users.routes.js';
import { presentEnvironment } from './modules/environments/environments.presenter.js';
import { eventsRoutes } from './modules/events/events.routes.js';
import { integrationsRoutes } from './modules/integrations/integrations.routes.js';
import { notificationRoutingRoutes } from './modules/notification-routing/notification-routing.routes.js';
import { webhookRoutes } from './modules/integrations/webhook.routes.js';
import { presentInventory } from './modules/inventories/inventories.presenter.js';
import { presentKey } from './modules/keys/keys.presenter.js';
import { presentRepository } from './modules/repositories/repositories.presenter.js';
import { runnerProtocolRoutes } from './modules/runners/runner-protocol.routes.js';
import { runnersRoutes } from './modules/runners/runners.routes.js';
import { teamRoutes } from './modules/team/team.routes.js';
import { presentSchedule } from './modules/schedules/schedules.presenter.js';
import { schedulesExtraRoutes } from './modules/schedules/schedules.routes.js';
import { START_TARGET_BOUND_FIELDS } from './modules/schedules/workflow-starter.port.js';
import { StatsRepository } from './modules/stats/stats.repository.js';
import { statsRoutes } from './modules/stats/stats.routes.js';
import { StatsService } from './modules/stats/stats.service.js';
import { appsRoutes } from './modules/apps/apps.routes.js';
import { tasksRoutes } from './modules/tasks/tasks.routes.js';
import { hostsRoutes } from './modules/hosts/hosts.routes.js';
import { approvalsRoutes } from './modules/approvals/approvals.routes.js';
import { ApprovalSweep } from './modules/approvals/approval-sweep.js';
import { templatesExtraRoutes } from './modules/templates/templates.routes.js';
import { surveyOptionsRoutes } from './modules/survey-options/survey-options.routes.js';
import { terraformStatesRoutes } from './modules/terraform-states/terraform-states.routes.js';
import { terraformAliasesRoutes } from './modules/terraform-backend/terraform-aliases.routes.js';
import { terraformBackendRoutes } from './modules/terraform-backend/terraform-backend.routes.js';
import { presentTemplate } from './modules/templates/templates.presenter.js';
import { viewsExtraRoutes } from './modules/views/views.routes.js';
import { backupRoutes } from './modules/backup/backup.routes.js';
import { RealtimeHub } from './realtime/hub.js';
import { websocketOptions, wsRoutes } from './realtime/ws.routes.js';
import { PgEventBus } from './realtime/pg-bus.js';
import { clusterRoutes } from './modules/cluster/cluster.routes.js';
import { auditRoutes } from './modules/audit/audit.routes.js';
import { auditExportRoutes } from './modules/audit-export/audit-export.routes.js';
import { registerAuditContext } from './modules/audit/audit-context.js';
import { mappingsRoutes } from './modules/identity/mappings.routes.js';
import { registerSecurityHeaders } from './platform/security-headers.js';
import { resourceRoutes } from './platform/resource-routes.js';
import { workflowInputSchema, workflowSchema } from '@gantry/contracts';
import { presentWorkflow } from './modules/workflows/workflows.presenter.js';
import { workflowRunsRoutes } from './modules/workflow-runs/workflow-runs.routes.js';
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
  usePatternCompiler,
  viewInputSchema,
  viewSchema,
} from '@gantry/contracts';
import { registerAuth, type Authenticator } from './platform/auth.js';
import { registerErrorHandler, registerNotFound } from './platform/error-handler.js';
import { registerConsole } from './platform/static-assets.js';
import { nullTolerantValidatorCompiler } from './platform/null-tolerant-validator.js';
import { responseSerializerCompiler } from './platform/presented-response.js';
import { registerJsonBody } from './platform/json-body.js';
import { RequestLogController, loggerOptions } from './ops/logging.js';
import { registerOps } from './ops/ops.js';

import { createServices, type AppDeps, type Services } from './services.js';
import { OrphanSweep } from './engine/orphan-sweep.js';
import { compileLinearPattern } from './platform/linear-pattern.js';

export { createServices, type AppDeps, type Services };

export type GantryApp = FastifyInstance & { services: Services; routeTable: RegisteredRoute[] };

/** Registers plugins, hooks and every route over the services; never listens (server.ts does). */
export async function buildApp(deps: AppDeps): Promise<GantryApp> {
  const { config } = deps;
  // Parameter patterns (managers' regular expressions) run on RE2's linear-time engine here.
  usePatternCompiler(compileLinearPattern);
  const app = Fastify({
    // JSON lines, pretty ones on a terminal; per-request lines at debug only.
    logger: loggerOptions(config.logLevel),
    logController: new RequestLogController(),
    routerOptions: { ignoreTrailingSlash: true },
    bodyLimit: 1024 * 1024,
    // Behind a reverse proxy, request.ip is the client's address only from proxies trusted here.
    trustProxy: config.trustProxy,
  });
  const routeTable = recordRoutes(app);
  app.setValidatorCompiler(nullTolerantValidatorCompiler);
  app.setSerializerCompiler(responseSerializerCompiler);
  registerErrorHandler(app);
  registerJsonBody(app);

  const services = createServices(deps);
  // Tasks reach this node's API (the Terraform state backend) where it listens, once it does.
  services.selfUrl.listening(() => app.server.address());
  const { totp } = config;
  const authMethods: AuthMethods = {
    totp: { enabled: totp.enabled, allow_recovery: totp.enabled && totp.allowRecovery },
  };

  const authenticator: Authenticator = {
    fromSession: (v) => services.auth.resolveSession(v),
    fromToken: async (v) => {
      const id = await services.tokens.resolve(v);
      return id === null ? null : ((await services.users.findById(id)) ?? null);
    },
    enrolmentRequired: (user, mfaByProvider) => services.twoFactorPolicy.enrolmentRequired({ user, mfaByProvider }),
  };

  await registerSecurityHeaders(app, config.webHost);
  await app.register(cookie);
  await app.register(websocket, websocketOptions);
  const hub = new RealtimeHub(
    services.bus,
    async (projectId, userId) => (await services.projects.membership(projectId, userId)).role !== null,
    async (credential) => {
      const session = credential.kind === 'token' ? null : await authenticator.fromSession(credential.value);
      const user =
        credential.kind === 'token'
          ? await authenticator.fromToken(credential.value)
          : session?.verified
            ? session.user
            : null;
      // A user who must still set up two-factor sign-in gets no socket (and loses an open one).
      if (
        !user ||
        (await services.twoFactorPolicy.enrolmentRequired({ user, mfaByProvider: session?.mfaByProvider ?? false }))
      )
        return null;
      return { id: user.id, admin: user.admin === 1 };
    },
  );
  // Before any route: the document describes only routes registered after it.
  await app.register(swagger, {
    openapi: openApiDocument(config.version),
    transform: openApiTransform(jsonSchemaTransform),
  });
  await registerApiDocs(app);
  // /metrics (GANTRY_METRICS), /api/health, /api/ready; answers the metrics registry (null when off).
  const metrics = await registerOps(app, {
    config,
    db: deps.db,
    bus: services.bus,
    wsClients: () => hub.size,
    draining: () => services.drain.active,
  });
  // Every node's heartbeat age as this node sees it: a growing one is a node about to be declared dead.
  metrics?.gauge({
    name: 'gantry_node_heartbeat_age_seconds',
    help: 'Seconds since each server node sharing the database last wrote its heartbeat',
    labelNames: ['node', 'self'],
    async collect() {
      this.reset();
      const nodes = await services.cluster.list().catch(() => []);
      for (const n of nodes) this.set({ node: n.id, self: String(n.self) }, n.heartbeat_age_seconds);
    },
  });
  // Runners that stop calling have their tasks failed; every node checks, the database decides who does it.
  const runnerCheckMs = Math.min(15_000, (config.runnerTimeoutSeconds * 1000) / 4);
  const runnerCheck = setInterval(
    () => void services.runnerProtocol.failSilent().catch((e: unknown) => app.log.error(e)),
    runnerCheckMs,
  );
  runnerCheck.unref();
  // LDAP users gone from the directory or disabled there lose their sessions within a minute.
  services.ldap?.start(deps.ldapCheckMs);
  // Tasks this node's database rows say it runs but no live run holds (a final write lost): failed.
  const orphanSweep = new OrphanSweep(services.tasks, (id) => services.dispatcher.isRunningHere(id));
  orphanSweep.start((e) => app.log.error(e));
  // Approvals past their deadline are decided by their timeout; every node sweeps, the database picks one.
  const approvalSweep = new ApprovalSweep(services.approvals);
  approvalSweep.start((e) => app.log.error(e));
  // Log retention: once shortly after start, then daily; every node may run it (deletes are idempotent).
  const retention = () =>
    void services.taskOutput.applyRetention(config.taskLogRetentionDays).catch((e: unknown) => app.log.error(e));
  const retentionStart = config.taskLogRetentionDays > 0 ? setTimeout(retention, 60_000) : undefined;
  const retentionDaily = config.taskLogRetentionDays > 0 ? setInterval(retention, 24 * 60 * 60 * 1000) : undefined;
  retentionStart?.unref();
  retentionDaily?.unref();
  // Audit retention: every node looks hourly; the due time in the database lets one of them prune, once a day.
  const auditPrune = () =>
    void services.audit.pruneIfDue(config.auditRetentionDays).catch((e: unknown) => app.log.error(e));
  const auditPruneTimer = config.auditRetentionDays > 0 ? setInterval(auditPrune, 60 * 60 * 1000) : undefined;
  const auditPruneStart = config.auditRetentionDays > 0 ? setTimeout(auditPrune, 90_000) : undefined;
  auditPruneTimer?.unref();
  auditPruneStart?.unref();
  // Audit export to a SIEM (GANTRY_AUDIT_EXPORT_*): one worker per destination, in the background.
  services.auditExport.start();
  // Workflow runs are driven by every node through the database (a lease per run).
  services.workflowDriver.start();
  // Notification deliveries and sweeps: every node, through the database (claims and dedup keys).
  services.notificationRouting.start();
  // The bus reaches the other nodes (PostgreSQL) before anything is published; a database that
  // does not answer yet leaves it reconnecting, and /api/ready says so.
  if (services.bus instanceof PgEventBus) await services.bus.start().catch((e: unknown) => app.log.error(e));
  await services.cluster.start().catch((e: unknown) => app.log.error(e));
  app.addHook('onClose', async () => {
    services.cluster.stop();
    clearInterval(runnerCheck);
    services.ldap?.stop();
    orphanSweep.stop();
    approvalSweep.stop();
    clearTimeout(retentionStart);
    clearInterval(retentionDaily);
    clearInterval(auditPruneTimer);
    clearTimeout(auditPruneStart);
    // Ends a delivery under way and hands the destinations to another node.
    await services.auditExport.stop();
    await services.workflowDriver.stop();
    await services.notificationRouting.stop();
    hub.close();
    services.dispatcher.close();
    services.scheduler.stop();
    await services.bus.close();
  });
  registerAuth(app, authenticator, config.webHost);
  // Audit entries read the caller (user, auth kind, address, request id) from the request they happen in.
  registerAuditContext(app);

  await app.register(
    async (api) => {
      await api.register(
        systemRoutes({
          version: config.version,
          webHost: config.webHost,
          authMethods,
          useRemoteRunner: config.useRemoteRunner,
        }),
      );
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
      await api.register(usersRoutes(services.users, { webHost: config.webHost }));
      await api.register(totpRoutes(services.totp));
      await api.register(passkeysRoutes(services.passkeys, { webHost: config.webHost }));
      await api.register(securityRoutes(services.twoFactorPolicy));
      await api.register(tokensRoutes(services.tokens));
      await api.register(projectsRoutes(services.projects));
      await api.register(teamRoutes(services.team, services.projects));
      await api.register(mappingsRoutes(services.identityMappings));
      await api.register(auditRoutes(services.audit));
      await api.register(auditExportRoutes(services.auditExport));
      await api.register(wsRoutes(hub, config.webHost));
      await api.register(appsRoutes(services.apps, { report: services.sandboxReport }));
      await api.register(runnersRoutes(services.runners, services.projects));
      await api.register(clusterRoutes(services.cluster));
      await api.register(runnerProtocolRoutes(services.runners, services.runnerProtocol));
      await api.register(tasksRoutes(services.tasks, services.taskOutput, services.projects));
      await api.register(hostsRoutes(services.hosts, services.projects));
      await api.register(approvalsRoutes(services.approvals, services.projects));
      await api.register(workflowRunsRoutes(services.workflowRuns, services.projects));
      await api.register(
        templatesExtraRoutes(services.templates, services.projects, (id) => services.terraformState.summary(id)),
      );
      await api.register(surveyOptionsRoutes(services.surveyOptions, services.projects));
      await api.register(terraformStatesRoutes(services.terraformStates, services.projects));
      await api.register(terraformAliasesRoutes(services.terraformAliases, services.projects, config.webHost));
      await api.register(terraformBackendRoutes(services.terraformBackend, { maxStateBytes: config.maxStateBytes }));
      await api.register(viewsExtraRoutes(services.views, services.projects));
      await api.register(eventsRoutes(services.events, services.projects));
      const members = services.projects;
      await api.register(
        resourceRoutes({
          path: 'keys',
          audit: { recorder: services.audit, objectType: 'key' },
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
          audit: { recorder: services.audit, objectType: 'repository' },
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
          audit: { recorder: services.audit, objectType: 'inventory' },
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
          path: 'workflows',
          audit: { recorder: services.audit, objectType: 'workflow' },
          tag: 'workflows',
          members,
          service: services.workflows,
          present: presentWorkflow,
          itemSchema: workflowSchema,
          createSchema: workflowInputSchema,
          updateSchema: workflowInputSchema,
        }),
      );
      await api.register(
        resourceRoutes({
          path: 'environment',
          audit: { recorder: services.audit, objectType: 'environment' },
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
          audit: { recorder: services.audit, objectType: 'template' },
          tag: 'templates',
          members,
          service: services.templates,
          present: presentTemplate,
          itemSchema: templateSchema,
          createSchema: templateInputSchema,
          updateSchema: templateInputSchema,
          // A client that knows only the first id (Semaphore's) keeps the list while that id stays.
          boundFields: { environment_ids: 'environment_id', inventory_ids: 'inventory_id' },
        }),
      );
      await api.register(
        resourceRoutes({
          path: 'schedules',
          audit: { recorder: services.audit, objectType: 'schedule' },
          tag: 'schedules',
          members,
          service: services.schedules,
          present: presentSchedule,
          itemSchema: scheduleSchema,
          createSchema: scheduleInputSchema,
          updateSchema: scheduleInputSchema,
          boundFields: START_TARGET_BOUND_FIELDS,
        }),
      );
      await api.register(schedulesExtraRoutes(services.schedules, services.projects));
      await api.register(
        integrationsRoutes({
          integrations: services.integrations,
          rules: services.integrationRules,
          members,
          webHost: config.webHost,
        }),
      );
      await api.register(
        notificationRoutingRoutes({
          destinations: services.notificationRouting.destinations,
          rules: services.notificationRouting.rules,
          members,
        }),
      );
      await api.register(webhookRoutes(services.webhooks));
      await api.register(backupRoutes(services.backup, services.projectCache, services.projects));
      await api.register(
        statsRoutes(new StatsService(new StatsRepository(deps.db.db)), services.projects, (p, id) =>
          services.templates.get(p, id),
        ),
      );
      await api.register(
        resourceRoutes({
          path: 'views',
          audit: { recorder: services.audit, objectType: 'view' },
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
  return Object.assign(app as FastifyInstance, { services, routeTable });
}
