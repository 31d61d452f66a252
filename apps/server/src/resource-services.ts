import type { Kysely } from 'kysely';
import type { Database } from './db/types.js';
import { EnvironmentsRepository } from './modules/environments/environments.repository.js';
import { EnvironmentsService } from './modules/environments/environments.service.js';
import { EventsRepository } from './modules/events/events.repository.js';
import { EventsService } from './modules/events/events.service.js';
import { IntegrationRulesService } from './modules/integrations/integration-rules.service.js';
import { IntegrationsRepository } from './modules/integrations/integrations.repository.js';
import { IntegrationsService } from './modules/integrations/integrations.service.js';
import { InventoriesRepository } from './modules/inventories/inventories.repository.js';
import { InventoriesService } from './modules/inventories/inventories.service.js';
import { KeysRepository } from './modules/keys/keys.repository.js';
import { KeysService } from './modules/keys/keys.service.js';
import { ProjectsRepository } from './modules/projects/projects.repository.js';
import { ProjectsService } from './modules/projects/projects.service.js';
import { ReferencesRepository } from './modules/references/references.repository.js';
import { RepositoriesRepository } from './modules/repositories/repositories.repository.js';
import { RepositoriesService } from './modules/repositories/repositories.service.js';
import { SchedulesRepository } from './modules/schedules/schedules.repository.js';
import { SchedulesService } from './modules/schedules/schedules.service.js';
import { TemplatesRepository } from './modules/templates/templates.repository.js';
import { TemplatesService } from './modules/templates/templates.service.js';
import { ViewsRepository } from './modules/views/views.repository.js';
import { ViewsService } from './modules/views/views.service.js';
import { nodeTemplateOf } from './modules/workflows/workflow-links.js';
import { WorkflowsRepository } from './modules/workflows/workflows.repository.js';
import { WorkflowsService } from './modules/workflows/workflows.service.js';
import type { Clock } from './platform/clock.js';
import { NotFoundError } from './platform/errors.js';
import { randomUrlToken, type SecretBox } from './platform/crypto.js';
import type { LocalPathCheck } from './platform/local-paths.js';
import { driftWorkspace } from './modules/terraform-plans/drift-workspace.js';

/** A project's resources, as the API and a restore both write them. */
export interface ResourceServices {
  events: EventsService;
  refs: ReferencesRepository;
  projects: ProjectsService;
  keys: KeysService;
  repositories: RepositoriesService;
  inventories: InventoriesService;
  environments: EnvironmentsService;
  views: ViewsService;
  templates: TemplatesService;
  schedulesRepo: SchedulesRepository;
  schedules: SchedulesService;
  integrationsRepo: IntegrationsRepository;
  integrations: IntegrationsService;
  integrationRules: IntegrationRulesService;
  workflows: WorkflowsService;
}

export interface ResourceServicesDeps {
  box: SecretBox;
  clock: Clock;
  nonAdminCanCreateProject: boolean;
  /** GANTRY_ALLOWED_LOCAL_PATHS for repositories and file inventories (a restore goes through it too). */
  localPaths: LocalPathCheck;
  /** Whether templates may use an app id; answered outside this database handle. */
  appExists(appId: string): Promise<boolean>;
}

/**
 * Builds the project-resource services on one database handle: the server's shared one, or a
 * restore's transaction (so everything a restore writes goes through the same checks and rolls
 * back together).
 */
export function createResourceServices(db: Kysely<Database>, d: ResourceServicesDeps): ResourceServices {
  const { box, clock } = d;
  const events = new EventsService(new EventsRepository(db), clock);
  const refs = new ReferencesRepository(db);
  const projects = new ProjectsService(new ProjectsRepository(db), events, clock, d.nonAdminCanCreateProject);
  const keys = new KeysService(new KeysRepository(db), refs, box, events, clock);
  const repositories = new RepositoriesService(new RepositoriesRepository(db), keys, refs, events, clock, d.localPaths);
  const inventories = new InventoriesService(
    new InventoriesRepository(db),
    keys,
    repositories,
    refs,
    events,
    clock,
    d.localPaths,
  );
  const environments = new EnvironmentsService(new EnvironmentsRepository(db), refs, box, events, clock);
  const views = new ViewsService(new ViewsRepository(db), events);
  const templates = new TemplatesService(
    new TemplatesRepository(db),
    {
      keys,
      repositories,
      inventories,
      environments,
      viewExists: (p, id) => views.exists(p, id),
      appExists: (id) => d.appExists(id),
      isMember: async (p, u) => (await projects.membership(p, u)).role !== null,
    },
    refs,
    events,
    clock,
  );
  const schedulesRepo = new SchedulesRepository(db);
  // Workflows are built below; a schedule or integration only looks one up once saved.
  const workflowLookup = { get: (projectId: number, id: number) => workflows.get(projectId, id) };
  const schedules = new SchedulesService(schedulesRepo, templates, repositories, events, clock, workflowLookup);
  // Here, not in services.ts: a restore's services (in its transaction) check a drift check's workspace too.
  schedules.driftWorkspace = async (projectId, template, given) =>
    driftWorkspace(template, await inventories.get(projectId, given).catch(() => null), 'task_params.inventory_id');
  const integrationsRepo = new IntegrationsRepository(db);
  const integrations = new IntegrationsService(
    integrationsRepo,
    templates,
    keys,
    events,
    clock,
    () => randomUrlToken(24),
    workflowLookup,
  );
  const integrationRules = new IntegrationRulesService(integrationsRepo, integrations, events);
  // Another module's "not found" is the answer null; anything else (the database away) stays an error.
  const found = <T>(p: Promise<T>) =>
    p.catch((e: unknown) => {
      if (e instanceof NotFoundError) return null;
      throw e;
    });
  const workflows = new WorkflowsService(
    new WorkflowsRepository(db),
    {
      template: async (projectId, id) => {
        const row = await found(templates.get(projectId, id));
        return row && nodeTemplateOf(row);
      },
      inventoryExists: async (projectId, id) => (await found(inventories.get(projectId, id))) !== null,
      variableGroupExists: async (projectId, id) => (await found(environments.get(projectId, id))) !== null,
      isMember: async (projectId, userId) => (await projects.membership(projectId, userId)).role !== null,
      references: (projectId, id) => refs.forWorkflow(projectId, id),
    },
    events,
    clock,
  );
  return {
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
  };
}
