import type { GantryEvent } from '@gantry/contracts';
import type { Clock } from '../../platform/clock.js';
import type { EventsRepository } from './events.repository.js';

export interface EventInput {
  projectId: number | null;
  userId: number | null;
  objectType: string;
  objectId: number | null;
  description: string;
}

/** The activity log: every change in a project leaves one line here. */
export class EventsService {
  constructor(
    private readonly repo: EventsRepository,
    private readonly clock: Clock,
  ) {}

  async record(e: EventInput): Promise<void> {
    await this.repo.insert({
      project_id: e.projectId,
      user_id: e.userId,
      object_type: e.objectType,
      object_id: e.objectId,
      description: e.description,
      created: this.clock.now().toISOString(),
    });
  }

  async last(projectId: number, limit = 200): Promise<GantryEvent[]> {
    const rows = await this.repo.lastForProject(projectId, limit);
    return rows.map((r) => ({
      id: r.id,
      project_id: r.project_id,
      user_id: r.user_id,
      username: r.username ?? null,
      object_type: r.object_type,
      object_id: r.object_id,
      description: r.description,
      created: r.created,
    }));
  }
}
