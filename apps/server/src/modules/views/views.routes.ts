import { Permission, idParamSchema, viewPositionsSchema } from '@gantry/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { projectGuard, type ProjectMembership } from '../../platform/permissions.js';
import type { ViewsService } from './views.service.js';
import { noContent } from '../../platform/openapi-document.js';

/** Extras beside the resource routes: reorder. */
export function viewsExtraRoutes(views: ViewsService, members: ProjectMembership): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      '/project/:projectId/views/positions',
      {
        preValidation: projectGuard(members, Permission.manageProjectResources),
        schema: {
          response: { 204: noContent },
          tags: ['views'],
          params: z.object({ projectId: idParamSchema }),
          body: viewPositionsSchema,
        },
      },
      async (request, reply) => {
        await views.setPositions(request.params.projectId, request.body);
        return reply.status(204).send();
      },
    );
  };
}
