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

/** How many events the `/events/last` routes answer, as Semaphore's. */
export const LAST_EVENTS = 200;
/**
 * What the bare event routes answer at most. Semaphore answers every event there; with years of
 * history that is an answer of hundreds of megabytes, so Gantry stops at the newest 5,000.
 */
export const ALL_EVENTS_MAX = 5000;

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

  /** A project's events, newest first: the last 200 (`/events/last`) unless told more. */
  async last(projectId: number, limit: number = LAST_EVENTS): Promise<GantryEvent[]> {
    return (await this.repo.lastForProject(projectId, limit)).map(present);
  }

  /** Events of the user's projects (admins: all), newest first: the last 200 unless told more. */
  async lastForUser(user: { id: number; admin: boolean }, limit: number = LAST_EVENTS): Promise<GantryEvent[]> {
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
