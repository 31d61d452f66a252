import type { Kysely } from 'kysely';
import { withDeferredCheckpoint } from '../../db/sqlite-checkpoint.js';
import type { Database } from '../../db/types.js';
import type { EnvironmentsService } from '../environments/environments.service.js';
import type { EventsService } from '../events/events.service.js';
import type { IntegrationRulesService } from '../integrations/integration-rules.service.js';
import type { IntegrationsService } from '../integrations/integrations.service.js';
import type { InventoriesService } from '../inventories/inventories.service.js';
import type { KeysService } from '../keys/keys.service.js';
import type { ProjectsService } from '../projects/projects.service.js';
import type { RepositoriesService } from '../repositories/repositories.service.js';
import type { SchedulesService } from '../schedules/schedules.service.js';
import type { TemplatesService } from '../templates/templates.service.js';
import type { ViewsService } from '../views/views.service.js';
import type { WorkflowsService } from '../workflows/workflows.service.js';

/** The services a restore writes through: the same create methods and checks as the API's. */
export interface RestoreServices {
  projects: ProjectsService;
  keys: KeysService;
  repositories: RepositoriesService;
  inventories: InventoriesService;
  environments: EnvironmentsService;
  views: ViewsService;
  templates: TemplatesService;
  schedules: SchedulesService;
  integrations: IntegrationsService;
  integrationRules: IntegrationRulesService;
  workflows: WorkflowsService;
  events: EventsService;
}

/**
 * Runs `fn` with services bound to one transaction: a restore that fails half-way leaves nothing
 * behind. `appExists` answers from lookups made before the transaction began.
 */
export type RestoreUnit = <T>(
  appExists: (appId: string) => boolean,
  fn: (s: RestoreServices) => Promise<T>,
) => Promise<T>;

/**
 * Builds the services on the transaction instead of the shared handle (`build` is the server's
 * own wiring). Everything they reach must be built on it too: on SQLite the transaction holds the
 * only connection, so a query through the shared handle would wait for it forever.
 */
export function restoreUnit(
  db: Kysely<Database>,
  build: (trx: Kysely<Database>, appExists: (appId: string) => boolean) => RestoreServices,
): RestoreUnit {
  // A restore writes megabytes at once: on SQLite its commit is not also the WAL checkpoint.
  return (appExists, fn) =>
    withDeferredCheckpoint(db, () => db.transaction().execute(async (trx) => fn(build(trx, appExists))));
}
