import { hostsListSchema, idParamSchema } from '@gantry/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { projectGuard, type ProjectMembership } from '../../platform/permissions.js';
import type { HostsService } from './hosts.service.js';

const params = z.object({ projectId: idParamSchema });

/** `GET /project/{id}/hosts`: the hosts of the project's inventories and their last tasks (project read). */
export function hostsRoutes(hosts: HostsService, members: ProjectMembership): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/project/:projectId/hosts',
      {
        preValidation: projectGuard(members, 0),
        schema: { tags: ['hosts'], params, response: { 200: hostsListSchema } },
      },
      async (request) => hosts.list(request.params.projectId),
    );
  };
}
