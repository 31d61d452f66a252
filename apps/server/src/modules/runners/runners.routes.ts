import {
  Permission,
  idParamSchema,
  runnerActiveSchema,
  runnerCreatedSchema,
  runnerInputSchema,
  runnerSchema,
} from '@gantry/contracts';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireAdmin, requireUser } from '../../platform/auth.js';
import { projectGuard, projectOf, type ProjectMembership } from '../../platform/permissions.js';
import { presentRunner } from './runners.presenter.js';
import type { RunnerScope, RunnersService } from './runners.service.js';
import { noContent } from '../../platform/openapi-document.js';

const itemParams = z.object({ id: idParamSchema });
const projectParams = z.object({ projectId: idParamSchema });
const projectItemParams = z.object({ projectId: idParamSchema, id: idParamSchema });
type Guard = { preValidation: (request: FastifyRequest) => Promise<void> };
const actorOf = (request: FastifyRequest) => {
  const u = requireUser(request);
  return { id: u.id, admin: u.admin === 1 };
};

/**
 * Runner registrations: /runners for administrators (every runner; new ones are global) and
 * /project/{id}/runners for a project's own runners (the "project_runners" feature, open to
 * every edition here), behind the updateProject permission.
 */
export function runnersRoutes(runners: RunnersService, members: ProjectMembership): FastifyPluginAsyncZod {
  return async (app) => {
    const tags = ['runners'];
    const admin: Guard = { preValidation: async (request: FastifyRequest) => void requireAdmin(request) };
    const project: Guard = { preValidation: projectGuard(members, Permission.updateProject) };
    const scopes: Array<{
      base: string;
      guard: Guard;
      params: z.ZodType<{ id: number }>;
      listParams?: typeof projectParams;
      scope: (r: FastifyRequest) => RunnerScope | 'all';
      createScope: (r: FastifyRequest) => RunnerScope;
    }> = [
      {
        base: '/runners',
        guard: admin,
        params: itemParams,
        scope: () => 'all',
        createScope: () => ({ projectId: null }),
      },
      {
        base: '/project/:projectId/runners',
        guard: project,
        params: projectItemParams,
        listParams: projectParams,
        scope: (r) => ({ projectId: projectOf(r).projectId }),
        createScope: (r) => ({ projectId: projectOf(r).projectId }),
      },
    ];
    for (const s of scopes) {
      const listSchema = s.listParams ? { params: s.listParams } : {};
      app.get(
        s.base,
        { ...s.guard, schema: { tags, ...listSchema, response: { 200: z.array(runnerSchema) } } },
        async (request) => (await runners.list(s.scope(request))).map(presentRunner),
      );

      app.post(
        s.base,
        {
          ...s.guard,
          schema: { tags, ...listSchema, body: runnerInputSchema, response: { 201: runnerCreatedSchema } },
        },
        async (request, reply) => {
          const { row, token, privateKey } = await runners.create(
            actorOf(request),
            s.createScope(request),
            request.body,
          );
          return reply.status(201).send({ ...presentRunner(row), token, private_key: privateKey });
        },
      );

      app.get(
        `${s.base}/:id`,
        { ...s.guard, schema: { tags, params: s.params, response: { 200: runnerSchema } } },
        async (request) => presentRunner(await runners.get(s.scope(request), request.params.id)),
      );

      app.put(
        `${s.base}/:id`,
        { ...s.guard, schema: { response: { 204: noContent }, tags, params: s.params, body: runnerInputSchema } },
        async (request, reply) => {
          await runners.update(actorOf(request), s.scope(request), request.params.id, request.body);
          return reply.status(204).send();
        },
      );

      app.post(
        `${s.base}/:id/active`,
        { ...s.guard, schema: { response: { 204: noContent }, tags, params: s.params, body: runnerActiveSchema } },
        async (request, reply) => {
          await runners.setActive(actorOf(request), s.scope(request), request.params.id, request.body.active);
          return reply.status(204).send();
        },
      );

      app.delete(
        `${s.base}/:id/cache`,
        { ...s.guard, schema: { response: { 204: noContent }, tags, params: s.params } },
        async (request, reply) => {
          await runners.clearCache(actorOf(request), s.scope(request), request.params.id);
          return reply.status(204).send();
        },
      );

      app.delete(
        `${s.base}/:id`,
        { ...s.guard, schema: { response: { 204: noContent }, tags, params: s.params } },
        async (request, reply) => {
          await runners.delete(actorOf(request), s.scope(request), request.params.id);
          return reply.status(204).send();
        },
      );
    }
  };
}
