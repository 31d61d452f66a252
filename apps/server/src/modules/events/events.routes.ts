import { eventSchema, idParamSchema } from '@gantry/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireUser } from '../../platform/auth.js';
import { projectGuard, type ProjectMembership } from '../../platform/permissions.js';
import type { EventsService } from './events.service.js';

export function eventsRoutes(events: EventsService, members: ProjectMembership): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/project/:projectId/events/last',
      {
        preValidation: projectGuard(members, 0),
        schema: { tags: ['events'], params: z.object({ projectId: idParamSchema }), response: { 200: z.array(eventSchema) } },
      },
      async (request) => events.last(request.params.projectId),
    );

    app.get('/events', { schema: { tags: ['events'], response: { 200: z.array(eventSchema) } } }, async (request) => {
      const u = requireUser(request);
      return events.lastForUser({ id: u.id, admin: u.admin === 1 });
    });
  };
}
