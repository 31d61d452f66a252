import { idParamSchema, terraformStateSchema, terraformStateVersionSchema } from '@gantry/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { projectGuard, type ProjectMembership } from '../../platform/permissions.js';
import type { TerraformStatesService } from './terraform-states.service.js';

const listParams = z.object({ projectId: idParamSchema, id: idParamSchema });
const itemParams = listParams.extend({ stateId: idParamSchema });

/** State versions of a workspace inventory; any member may read them (values redacted). */
export function terraformStatesRoutes(
  states: TerraformStatesService,
  members: ProjectMembership,
): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/project/:projectId/inventory/:id/terraform/states',
      {
        preValidation: projectGuard(members, 0),
        schema: { tags: ['inventory'], params: listParams, response: { 200: z.array(terraformStateVersionSchema) } },
      },
      async (request) => states.list(request.params.projectId, request.params.id),
    );
    app.get(
      '/project/:projectId/inventory/:id/terraform/states/:stateId',
      {
        preValidation: projectGuard(members, 0),
        schema: { tags: ['inventory'], params: itemParams, response: { 200: terraformStateSchema } },
      },
      async (request) => states.get(request.params.projectId, request.params.id, request.params.stateId),
    );
  };
}
