import { clusterNodeSchema } from '@gantry/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireAdmin } from '../../platform/auth.js';
import type { ClusterService } from './cluster.service.js';

/** GET /api/nodes (admin): the server nodes sharing the database, for the Cluster page. */
export function clusterRoutes(cluster: ClusterService): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/nodes',
      {
        schema: { tags: ['cluster'], response: { 200: z.array(clusterNodeSchema) } },
        preValidation: async (request) => void requireAdmin(request),
      },
      async () => cluster.list(),
    );
  };
}
