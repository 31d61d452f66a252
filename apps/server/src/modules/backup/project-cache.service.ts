import type { ProjectCheckouts, TaskWorkspaceStore } from '../../engine/ports.js';
import type { Actor } from '../../platform/resource-routes.js';
import { noAudit, type AuditRecorder } from '../audit/audit.port.js';
import type { EventsService } from '../events/events.service.js';
import type { ProjectCacheRepository } from './project-cache.repository.js';

/**
 * What this node keeps on disk for a project between runs and can rebuild: the working folders
 * of runs that ended without cleaning up (a crash or a kill), and the checkouts kept for its runs
 * (a run whose repository's refs have not moved copies one instead of cloning). Terraform state
 * is real state and known_hosts files are trust decisions, so neither is touched.
 */
export class ProjectCacheService {
  constructor(
    private readonly repo: ProjectCacheRepository,
    private readonly workspaces: TaskWorkspaceStore,
    private readonly events: EventsService,
    /** None when the node keeps no checkouts (GANTRY_CHECKOUT_CACHE_ENTRIES=0). */
    private readonly checkouts?: ProjectCheckouts,
  ) {}

  /** Where clearing is recorded (the composition root wires the audit trail in). */
  audit: AuditRecorder = noAudit;

  /** A deleted project's kept checkouts go with it (on this node; pruneDeleted does the others' at their start). */
  async forgetProject(projectId: number): Promise<void> {
    await this.checkouts?.clearProject(projectId).catch(() => undefined);
  }

  /** At start-up: the kept checkouts of projects deleted while this node was down or through another node. */
  async pruneDeleted(): Promise<number> {
    if (!this.checkouts) return 0;
    return this.checkouts.pruneProjects(await this.repo.projectIds());
  }

  /** Removes the folders of this project's finished tasks and its kept checkouts; answers how many folders there were. */
  async clear(actor: Actor, projectId: number): Promise<number> {
    const leftovers = await this.repo.finishedTaskIds(projectId, this.workspaces.taskIds());
    for (const id of leftovers) this.workspaces.remove(id);
    const checkouts = (await this.checkouts?.clearProject(projectId)) ?? 0;
    await this.events.record({
      projectId,
      userId: actor.id,
      objectType: 'project',
      objectId: projectId,
      description: 'Project cache cleared',
    });
    await this.audit.record({
      action: 'delete',
      objectType: 'project_cache',
      objectId: projectId,
      projectId,
      before: { task_folders: leftovers.length, checkouts },
    });
    return leftovers.length;
  }
}
