import type { ProjectBackup, RestoreResult } from '@gantry/contracts';
import type { Clock } from '../../platform/clock.js';
import type { Actor } from '../../platform/resource-routes.js';
import { presentEnvironment } from '../environments/environments.presenter.js';
import type { EnvironmentsService } from '../environments/environments.service.js';
import type { EventsService } from '../events/events.service.js';
import type { IntegrationRulesService } from '../integrations/integration-rules.service.js';
import { presentExtractValue, presentIntegration, presentMatcher } from '../integrations/integrations.presenter.js';
import type { IntegrationsService } from '../integrations/integrations.service.js';
import { presentInventory } from '../inventories/inventories.presenter.js';
import type { InventoriesService } from '../inventories/inventories.service.js';
import { presentKey } from '../keys/keys.presenter.js';
import type { KeysService } from '../keys/keys.service.js';
import { presentProject } from '../projects/projects.presenter.js';
import type { ProjectsService } from '../projects/projects.service.js';
import { presentRepository } from '../repositories/repositories.presenter.js';
import type { RepositoriesService } from '../repositories/repositories.service.js';
import { presentSchedule } from '../schedules/schedules.presenter.js';
import type { SchedulesService } from '../schedules/schedules.service.js';
import { presentTemplate } from '../templates/templates.presenter.js';
import type { TemplatesService } from '../templates/templates.service.js';
import type { ViewsService } from '../views/views.service.js';
import { backupFileName, presentBackup } from './backup.presenter.js';
import { restoreProject } from './backup.restore.js';
import type { RestoreUnit } from './backup.transaction.js';

/** The services an export reads from (the app's shared ones). */
export interface BackupSources {
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
  events: EventsService;
}

/** Project export (a JSON document without secrets) and restore into a new project. */
export class BackupService {
  constructor(
    private readonly read: BackupSources,
    private readonly unit: RestoreUnit,
    /** Whether an app id is known (built-in or added by an admin). */
    private readonly appExists: (appId: string) => Promise<boolean>,
    private readonly clock: Clock,
  ) {}

  /** `actor` null: the command line, run by the server's operator. */
  async export(actor: Actor | null, projectId: number): Promise<{ fileName: string; backup: ProjectBackup }> {
    const r = this.read;
    const project = presentProject(await r.projects.get(projectId), null);
    const keys = await Promise.all(
      (await r.keys.list(projectId)).map(async (row) => ({
        ...presentKey(row),
        // Only the login is read out of an ssh key's sealed material; the rest stays sealed.
        sshLogin: row.type === 'ssh' ? ((await r.keys.secretOf(projectId, row.id))?.login ?? null) : null,
      })),
    );
    const integrations = await Promise.all(
      (await r.integrations.list(projectId)).map(async (row) => ({
        ...presentIntegration(row),
        matchers: (await r.integrationRules.matchers(projectId, row.id)).map(presentMatcher),
        values: (await r.integrationRules.values(projectId, row.id)).map(presentExtractValue),
      })),
    );
    const backup = presentBackup({
      project,
      exported: this.clock.now().toISOString(),
      keys,
      repositories: (await r.repositories.list(projectId)).map(presentRepository),
      inventories: (await r.inventories.list(projectId, {})).map(presentInventory),
      environments: (await r.environments.list(projectId)).map(presentEnvironment),
      views: await r.views.list(projectId),
      templates: (await r.templates.list(projectId, {})).map(presentTemplate),
      schedules: (await r.schedules.list(projectId)).map(presentSchedule),
      integrations,
    });
    await r.events.record({
      projectId,
      userId: actor?.id ?? null,
      objectType: 'project',
      objectId: projectId,
      description: `Project ${project.name} exported`,
    });
    return { fileName: backupFileName(projectId, project.name), backup };
  }

  /**
   * Creates a new project from a backup, owned by `actor`, in one transaction. Apps are looked
   * up first: the transaction may hold the database's only connection.
   */
  async restore(actor: Actor, doc: ProjectBackup): Promise<RestoreResult> {
    this.read.projects.assertCanCreate(actor);
    const known = new Set<string>();
    for (const app of new Set(doc.templates.map((t) => t.app))) {
      if (await this.appExists(app)) known.add(app);
    }
    return this.unit(
      (app) => known.has(app),
      (s) => restoreProject(s, actor, doc),
    );
  }
}
