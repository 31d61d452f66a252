import { ErrorCodes } from '@gantry/contracts';
import type { References, viewInputSchema } from '@gantry/contracts';
import type { z } from 'zod';
import { NotFoundError } from '../../platform/errors.js';
import type { Actor, ProjectResourceService } from '../../platform/resource-routes.js';
import { noAudit, type AuditRecorder } from '../audit/audit.port.js';
import type { EventsService } from '../events/events.service.js';
import type { ViewRow, ViewsRepository } from './views.repository.js';

type Input = z.output<typeof viewInputSchema>;

/** Template views (tabs over the template list); deleting one leaves its templates in All. */
export class ViewsService implements ProjectResourceService<ViewRow, Input, Input> {
  constructor(
    private readonly repo: ViewsRepository,
    private readonly events: EventsService,
  ) {}

  /** Where reordering is recorded (create, update and delete are recorded by resource-routes). */
  audit: AuditRecorder = noAudit;

  list(projectId: number): Promise<ViewRow[]> {
    return this.repo.list(projectId);
  }

  async get(projectId: number, id: number): Promise<ViewRow> {
    const row = await this.repo.find(projectId, id);
    if (!row) throw new NotFoundError('View not found', { code: ErrorCodes.viewNotFound });
    return row;
  }

  async exists(projectId: number, id: number): Promise<boolean> {
    return (await this.repo.find(projectId, id)) !== undefined;
  }

  async create(actor: Actor, projectId: number, input: Input): Promise<ViewRow> {
    const row = await this.repo.insert(projectId, input.title, input.position);
    await this.events.record({ projectId, userId: actor.id, objectType: 'view', objectId: row.id, description: `View ${row.title} created` });
    return row;
  }

  async update(actor: Actor, projectId: number, id: number, input: Input): Promise<void> {
    await this.get(projectId, id);
    await this.repo.update(projectId, id, { title: input.title, position: input.position });
    await this.events.record({ projectId, userId: actor.id, objectType: 'view', objectId: id, description: `View ${input.title} updated` });
  }

  async delete(actor: Actor, projectId: number, id: number): Promise<void> {
    const row = await this.get(projectId, id);
    await this.repo.delete(projectId, id);
    await this.events.record({ projectId, userId: actor.id, objectType: 'view', objectId: id, description: `View ${row.title} deleted` });
  }

  async refs(projectId: number, id: number): Promise<References> {
    await this.get(projectId, id);
    return { templates: [], inventories: [], repositories: [], schedules: [], integrations: [] };
  }

  /**
   * Applies a map of view id to position; ids of other projects are ignored. Each view whose
   * position changed is one audit entry.
   */
  async setPositions(projectId: number, positions: Record<string, number>): Promise<void> {
    for (const [id, position] of Object.entries(positions)) {
      const viewId = Number(id);
      if (!Number.isInteger(viewId)) continue;
      const row = await this.repo.find(projectId, viewId);
      if (!row) continue;
      await this.repo.update(projectId, viewId, { position });
      await this.audit.record({ action: 'update', objectType: 'view', objectId: viewId, projectId, before: { position: row.position }, after: { position } });
    }
  }
}
