import { idParamSchema, statsEntrySchema, statsQuerySchema } from '@gantry/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { projectGuard, type ProjectMembership } from '../../platform/permissions.js';
import type { StatsService } from './stats.service.js';

export function statsRoutes(stats: StatsService, members: ProjectMembership, templateExists: (p: number, id: number) => Promise<unknown>): FastifyPluginAsyncZod {
  return async (app) => {
    const read = projectGuard(members, 0);
    const response = { 200: z.array(statsEntrySchema) };
    app.get('/project/:projectId/stats', { preValidation: read, schema: { tags: ['stats'], params: z.object({ projectId: idParamSchema }), querystring: statsQuerySchema, response } }, async (request) =>
      stats.perDay(request.params.projectId, request.query.start, { userId: request.query.user_id }),
    );
    app.get(
      '/project/:projectId/templates/:id/stats',
      { preValidation: read, schema: { tags: ['stats'], params: z.object({ projectId: idParamSchema, id: idParamSchema }), querystring: statsQuerySchema, response } },
      async (request) => {
        await templateExists(request.params.projectId, request.params.id);
        return stats.perDay(request.params.projectId, request.query.start, { templateId: request.params.id, userId: request.query.user_id });
      },
    );
  };
}
