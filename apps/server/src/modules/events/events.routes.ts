import { eventSchema, idParamSchema } from '@gantry/contracts';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireUser } from '../../platform/auth.js';
import { projectGuard, type ProjectMembership } from '../../platform/permissions.js';
import { ALL_EVENTS_MAX, type EventsService } from './events.service.js';

export function eventsRoutes(events: EventsService, members: ProjectMembership): FastifyPluginAsyncZod {
  return async (app) => {
    const tags = ['events'];
    const params = z.object({ projectId: idParamSchema });
    const response = { 200: z.array(eventSchema) };
    const read = projectGuard(members, 0);
    const viewer = (request: FastifyRequest) => {
      const u = requireUser(request);
      return { id: u.id, admin: u.admin === 1 };
    };

    // As Semaphore: `/last` answers the newest 200, the bare routes more (every event there; here at most ALL_EVENTS_MAX); newest first.
    app.get(
      '/project/:projectId/events/last',
      { preValidation: read, schema: { tags, params, response } },
      async (request) => events.last(request.params.projectId),
    );
    app.get(
      '/project/:projectId/events',
      { preValidation: read, schema: { tags, params, response } },
      async (request) => events.last(request.params.projectId, ALL_EVENTS_MAX),
    );
    app.get('/events/last', { schema: { tags, response } }, async (request) => events.lastForUser(viewer(request)));
    app.get('/events', { schema: { tags, response } }, async (request) => events.lastForUser(viewer(request), ALL_EVENTS_MAX));
  };
}
