import type { BackupExportFormat, ProjectBackup, RestoreResult } from '@gantry/contracts';
import type { Clock } from '../../platform/clock.js';
import type { Actor } from '../../platform/resource-routes.js';
import { noAudit, type AuditRecorder } from '../audit/audit.port.js';
import { presentEnvironment } from '../environments/environments.presenter.js';
import { presentExtractValue, presentIntegration, presentMatcher } from '../integrations/integrations.presenter.js';
import { presentInventory } from '../inventories/inventories.presenter.js';
import { presentKey } from '../keys/keys.presenter.js';
import { presentProject } from '../projects/projects.presenter.js';
import { presentRepository } from '../repositories/repositories.presenter.js';
import { presentSchedule } from '../schedules/schedules.presenter.js';
import { presentTemplate } from '../templates/templates.presenter.js';
import { toCombined, type CombinedExport } from './backup.combined.js';
import { backupFileName, presentBackup } from './backup.presenter.js';
import { restoreProject } from './backup.restore.js';
import type { RestoreServices, RestoreUnit } from './backup.transaction.js';
import { toSemaphore, type SemaphoreExport } from './semaphore-export.js';
import { presentWorkflow } from '../workflows/workflows.presenter.js';

/** The services an export reads from: the app's shared ones, of the same kinds a restore writes. */
export type BackupSources = RestoreServices;

/** Project export (a JSON document without secrets) and restore into a new project. */
export class BackupService {
  constructor(
    private readonly read: BackupSources,
    private readonly unit: RestoreUnit,
    /** Whether an app id is known (built-in or added by an admin). */
    private readonly appExists: (appId: string) => Promise<boolean>,
    private readonly clock: Clock,
  ) {}

  /**
   * Where a restore is recorded: one entry for the new project with how many objects of each kind
   * it holds (the objects a restore creates are not entries of their own; a backup has no secrets).
   */
  audit: AuditRecorder = noAudit;

  /** `actor` null: the command line, run by the server's operator. */
  async export(actor: Actor | null, projectId: number): Promise<{ fileName: string; backup: ProjectBackup }> {
    const r = this.read;
    const project = presentProject(await r.projects.get(projectId), null);
    const keys = await Promise.all(
      (await r.keys.list(projectId)).map(async (row) => ({
        ...presentKey(row),
        // Only the login is read out of an ssh key's sealed material; the rest stays sealed.
        sshLogin: row.type === 'ssh' ? row.login || null : null,
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
      workflows: (await r.workflows.list(projectId)).map(presentWorkflow),
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
   * The export in the chosen format: the combined file (Semaphore UI's format with Gantry's extra
   * data in its `gantry` member; both products restore it), Gantry's own, or Semaphore UI's alone.
   */
  async exportAs(
    actor: Actor | null,
    projectId: number,
    format: BackupExportFormat,
  ): Promise<{ fileName: string; backup: ProjectBackup | SemaphoreExport | CombinedExport }> {
    const done = await this.export(actor, projectId);
    switch (format) {
      case 'gantry':
        return done;
      case 'semaphore':
        return { fileName: done.fileName.replace(/^gantry-/, 'semaphore-'), backup: toSemaphore(done.backup) };
      case 'combined':
        return { fileName: done.fileName.replace(/^gantry-/, ''), backup: toCombined(done.backup) };
    }
  }

  /**
   * Creates a new project from a backup, owned by `actor`, in one transaction. Apps are looked
   * up first: the transaction may hold the database's only connection. `unmapped` (what a
   * Semaphore backup held that its conversion left out) comes first in the answer's list, then
   * what the restore itself left out.
   */
  async restore(actor: Actor, doc: ProjectBackup, unmapped: string[] = []): Promise<RestoreResult> {
    this.read.projects.assertCanCreate(actor);
    const known = new Set<string>();
    for (const app of new Set(doc.templates.map((t) => t.app))) {
      if (await this.appExists(app)) known.add(app);
    }
    const result = await this.unit(
      (app) => known.has(app),
      (s) => restoreProject(s, actor, doc),
    );
    const done = { ...result, unmapped: [...unmapped, ...(result.unmapped ?? [])] };
    await this.recordRestore(done);
    return done;
  }

  /** The restore's entry: the project, the count of each kind restored, what was left empty or out. */
  private async recordRestore(result: RestoreResult): Promise<void> {
    const r = this.read;
    const p = result.id;
    const after = {
      name: result.projectName,
      keys: (await r.keys.list(p)).length,
      repositories: (await r.repositories.list(p)).length,
      inventories: (await r.inventories.list(p, {})).length,
      environments: (await r.environments.list(p)).length,
      views: (await r.views.list(p)).length,
      templates: (await r.templates.list(p, {})).length,
      schedules: (await r.schedules.list(p)).length,
      integrations: (await r.integrations.list(p)).length,
      workflows: (await r.workflows.list(p)).length,
      // Keys and variable-group values a backup never carries: counted, not named here.
      left_empty: result.emptySecrets?.length ?? result.emptyKeys,
      unmapped: result.unmapped?.length ?? 0,
    };
    await this.audit.record({ action: 'restore', objectType: 'project', objectId: p, projectId: p, after });
  }
}
