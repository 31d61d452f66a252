import { idParamSchema, surveyOptionsQuerySchema, surveyOptionsSchema } from '@gantry/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { projectGuard, type ProjectMembership } from '../../platform/permissions.js';
import type { SurveyOptionsService } from './survey-options.service.js';

const params = z.object({ projectId: idParamSchema, id: idParamSchema, name: z.string().min(1).max(255) });

/** The options a choice parameter offers now (run dialog); any member may read them, as the template. */
export function surveyOptionsRoutes(service: SurveyOptionsService, members: ProjectMembership): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/project/:projectId/templates/:id/survey/:name/options',
      {
        preValidation: projectGuard(members, 0),
        schema: {
          tags: ['templates'],
          params,
          querystring: surveyOptionsQuerySchema,
          response: { 200: surveyOptionsSchema },
        },
      },
      async (request) => {
        const { projectId, id, name } = request.params;
        return service.options(projectId, id, name, request.query.answers, request.query.inventory_id);
      },
    );
  };
}
