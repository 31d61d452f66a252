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
    return (await this.repo.lastForProject(projectId, limit)).map(present);
  }

  async lastForUser(user: { id: number; admin: boolean }, limit = 200): Promise<GantryEvent[]> {
    return (await this.repo.lastForUser(user.id, user.admin, limit)).map(present);
  }
}

function present(r: Awaited<ReturnType<EventsRepository['lastForProject']>>[number]): GantryEvent {
  return {
    id: r.id,
    project_id: r.project_id,
    user_id: r.user_id,
    username: r.username ?? null,
    object_type: r.object_type,
    object_id: r.object_id,
    description: r.description,
    created: r.created,
  };
}
