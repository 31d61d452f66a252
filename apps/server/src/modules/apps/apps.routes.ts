import { appSchema } from '@gantry/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppsService } from './apps.service.js';

export function appsRoutes(apps: AppsService): FastifyPluginAsyncZod {
  return async (app) => {
    app.get('/apps', { schema: { tags: ['apps'], response: { 200: z.array(appSchema) } } }, async () => apps.list());
  };
}
