import {
  appActiveSchema,
  appCreateSchema,
  appSchema,
  appUpdateSchema,
  sandboxStatusSchema,
  type SandboxStatus,
} from '@gantry/contracts';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireAdmin } from '../../platform/auth.js';
import type { AppsService } from './apps.service.js';
import { noContent } from '../../platform/openapi-document.js';

const params = z.object({ id: z.string() });
/** Refuses non-admins before the body is looked at, so they learn nothing from validation. */
const adminOnly = { preValidation: async (request: FastifyRequest) => void requireAdmin(request) };
const actorOf = (u: { id: number; admin: number }) => ({ id: u.id, admin: u.admin === 1 });

/**
 * Apps: every signed-in user reads them (the template form offers them); admins change them and
 * see whether the processes they start run sandboxed (`/sandbox`, apart from `/apps/:id`). Reading one
 * app (`GET /apps/:id`) is for admins, as in Semaphore.
 */
export function appsRoutes(apps: AppsService, sandbox: { report(): Promise<SandboxStatus> }): FastifyPluginAsyncZod {
  return async (app) => {
    app.get('/apps', { schema: { tags: ['apps'], response: { 200: z.array(appSchema) } } }, async () => apps.list());

    app.get(
      '/sandbox',
      { ...adminOnly, schema: { tags: ['apps'], response: { 200: sandboxStatusSchema } } },
      async () => sandbox.report(),
    );

    app.post(
      '/apps',
      { ...adminOnly, schema: { tags: ['apps'], body: appCreateSchema, response: { 201: appSchema } } },
      async (request, reply) => {
        const actor = actorOf(requireAdmin(request));
        return reply.status(201).send(await apps.create(actor, request.body));
      },
    );

    app.get(
      '/apps/:id',
      { ...adminOnly, schema: { tags: ['apps'], params, response: { 200: appSchema } } },
      async (request) => apps.get(request.params.id),
    );

    app.put(
      '/apps/:id',
      { ...adminOnly, schema: { response: { 204: noContent }, tags: ['apps'], params, body: appUpdateSchema } },
      async (request, reply) => {
        await apps.update(actorOf(requireAdmin(request)), request.params.id, request.body);
        return reply.status(204).send();
      },
    );

    // As in Semaphore: saves the app, creating it when no app has this id.
    app.post(
      '/apps/:id',
      { ...adminOnly, schema: { response: { 204: noContent }, tags: ['apps'], params, body: appUpdateSchema } },
      async (request, reply) => {
        await apps.upsert(actorOf(requireAdmin(request)), request.params.id, request.body);
        return reply.status(204).send();
      },
    );

    app.post(
      '/apps/:id/active',
      { ...adminOnly, schema: { response: { 204: noContent }, tags: ['apps'], params, body: appActiveSchema } },
      async (request, reply) => {
        await apps.setActive(actorOf(requireAdmin(request)), request.params.id, request.body.active);
        return reply.status(204).send();
      },
    );

    app.delete(
      '/apps/:id',
      { ...adminOnly, schema: { response: { 204: noContent }, tags: ['apps'], params } },
      async (request, reply) => {
        await apps.delete(actorOf(requireAdmin(request)), request.params.id);
        return reply.status(204).send();
      },
    );
  };
}
