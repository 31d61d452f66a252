import {
  Permission,
  idParamSchema,
  projectUserSchema,
  teamListQuerySchema,
  teamMemberCreateSchema,
  teamMemberUpdateSchema,
  type ProjectRole,
} from '@gantry/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireUser } from '../../platform/auth.js';
import { projectGuard, projectOf, type ProjectMembership } from '../../platform/permissions.js';
import type { TeamService } from './team.service.js';
import { noContent } from '../../platform/openapi-document.js';

const params = z.object({ projectId: idParamSchema });
const memberParams = z.object({ projectId: idParamSchema, userId: idParamSchema });

export function teamRoutes(team: TeamService, members: ProjectMembership): FastifyPluginAsyncZod {
  return async (app) => {
    const read = projectGuard(members, 0);
    const manage = projectGuard(members, Permission.manageProjectUsers);
    const actor = (u: { id: number; admin: number }) => ({ id: u.id, admin: u.admin === 1 });
    const tags = ['team'];

    app.get(
      '/project/:projectId/users',
      {
        preValidation: read,
        schema: { tags, params, querystring: teamListQuerySchema, response: { 200: z.array(projectUserSchema) } },
      },
      async (request) => {
        const rows = await team.list(request.params.projectId, request.query.sort, request.query.order);
        return rows.map(({ mapped_source: source, mapped_group: group, ...r }) => ({
          ...r,
          role: r.role as ProjectRole,
          mapped: source !== null && group !== null ? { source, group } : null,
        }));
      },
    );

    app.post(
      '/project/:projectId/users',
      { preValidation: manage, schema: { response: { 204: noContent }, tags, params, body: teamMemberCreateSchema } },
      async (request, reply) => {
        await team.add(actor(requireUser(request)), projectOf(request), request.body.user_id, request.body.role);
        return reply.status(204).send();
      },
    );

    app.put(
      '/project/:projectId/users/:userId',
      {
        preValidation: manage,
        schema: { response: { 204: noContent }, tags, params: memberParams, body: teamMemberUpdateSchema },
      },
      async (request, reply) => {
        await team.changeRole(
          actor(requireUser(request)),
          projectOf(request),
          request.params.userId,
          request.body.role,
        );
        return reply.status(204).send();
      },
    );

    app.delete(
      '/project/:projectId/users/:userId',
      { preValidation: manage, schema: { response: { 204: noContent }, tags, params: memberParams } },
      async (request, reply) => {
        await team.remove(actor(requireUser(request)), projectOf(request), request.params.userId);
        return reply.status(204).send();
      },
    );

    app.delete(
      '/project/:projectId/me',
      { preValidation: read, schema: { response: { 204: noContent }, tags, params } },
      async (request, reply) => {
        await team.leave(actor(requireUser(request)), request.params.projectId);
        return reply.status(204).send();
      },
    );
  };
}
