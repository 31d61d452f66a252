import {
  Permission,
  idParamSchema,
  projectCreateSchema,
  projectRoleInfoSchema,
  projectSchema,
  projectUpdateSchema,
} from '@gantry/contracts';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireUser } from '../../platform/auth.js';
import { noContent } from '../../platform/openapi-document.js';
import { keepStoredFields } from '../../platform/partial-update.js';
import { projectGuard, projectOf } from '../../platform/permissions.js';
import { presentProject } from './projects.presenter.js';
import type { ProjectsService } from './projects.service.js';

const params = z.object({ projectId: idParamSchema });

export function projectsRoutes(projects: ProjectsService): FastifyPluginAsyncZod {
  return async (app) => {
    const read = projectGuard(projects, 0);
    const update = projectGuard(projects, Permission.updateProject);
    const storedProject = async (request: FastifyRequest) => {
      const id = idParamSchema.safeParse((request.params as { projectId?: unknown }).projectId);
      return id.success ? presentProject(await projects.get(id.data), projectOf(request).role) : null;
    };

    app.get(
      '/projects',
      { schema: { tags: ['projects'], response: { 200: z.array(projectSchema) } } },
      async (request) => {
        const user = requireUser(request);
        const rows = await projects.list({ id: user.id, admin: user.admin === 1 });
        return rows.map((r) => presentProject(r, r.role));
      },
    );

    app.post(
      '/projects',
      { schema: { tags: ['projects'], body: projectCreateSchema, response: { 201: projectSchema } } },
      async (request, reply) => {
        const user = requireUser(request);
        const row = await projects.create({ id: user.id, admin: user.admin === 1 }, request.body);
        return reply.status(201).send(presentProject(row, 'owner'));
      },
    );

    app.get(
      '/project/:projectId',
      { preValidation: read, schema: { tags: ['projects'], params, response: { 200: projectSchema } } },
      async (request) => presentProject(await projects.get(request.params.projectId), projectOf(request).role),
    );

    app.put(
      '/project/:projectId',
      {
        // A field left out keeps its stored value, as Semaphore's handler does.
        preValidation: [update, keepStoredFields(projectUpdateSchema, (request) => storedProject(request))],
        schema: { tags: ['projects'], params, body: projectUpdateSchema, response: { 204: noContent } },
      },
      async (request, reply) => {
        await projects.update(requireUser(request).id, request.params.projectId, request.body);
        return reply.status(204).send();
      },
    );

    app.delete(
      '/project/:projectId',
      { preValidation: update, schema: { tags: ['projects'], params, response: { 204: noContent } } },
      async (request, reply) => {
        await projects.delete(request.params.projectId);
        return reply.status(204).send();
      },
    );

    app.get(
      '/project/:projectId/role',
      { preValidation: read, schema: { tags: ['projects'], params, response: { 200: projectRoleInfoSchema } } },
      async (request) => {
        const { role, permissions } = projectOf(request);
        return { role: role ?? ('' as const), permissions };
      },
    );
  };
}
