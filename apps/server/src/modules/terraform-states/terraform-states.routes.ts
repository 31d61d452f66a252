import {
  idParamSchema,
  Permission,
  stateDiffSchema,
  terraformStateSchema,
  terraformStateVersionSchema,
} from '@gantry/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { projectGuard, type ProjectMembership } from '../../platform/permissions.js';
import { requireUser } from '../../platform/auth.js';
import type { TerraformStatesService } from './terraform-states.service.js';
import { jsonObject, noContent, rawBody } from '../../platform/openapi-document.js';

const listParams = z.object({ projectId: idParamSchema, id: idParamSchema });
const itemParams = listParams.extend({ stateId: idParamSchema });
const diffQuery = z.object({ from: idParamSchema, to: idParamSchema });
const tags = ['inventory'];

/**
 * State versions of a workspace inventory: any member may read them (values redacted); owners
 * and managers delete one or purge them all; owners alone download one as terraform wrote it.
 */
export function terraformStatesRoutes(
  states: TerraformStatesService,
  members: ProjectMembership,
): FastifyPluginAsyncZod {
  return async (app) => {
    const base = '/project/:projectId/inventory/:id/terraform/states';
    const actor = (request: Parameters<typeof requireUser>[0]) => {
      const u = requireUser(request);
      return { id: u.id, admin: u.admin === 1 };
    };
    app.get(
      base,
      {
        preValidation: projectGuard(members, 0),
        schema: { tags, params: listParams, response: { 200: z.array(terraformStateVersionSchema) } },
      },
      async (request) => states.list(request.params.projectId, request.params.id),
    );
    app.get(
      `${base}/latest`,
      {
        preValidation: projectGuard(members, 0),
        schema: { tags, params: listParams, response: { 200: terraformStateSchema } },
      },
      async (request) => {
        const [newest] = await states.list(request.params.projectId, request.params.id);
        return states.get(request.params.projectId, request.params.id, newest?.id ?? 0);
      },
    );
    app.get(
      `${base}/diff`,
      {
        preValidation: projectGuard(members, 0),
        schema: { tags, params: listParams, querystring: diffQuery, response: { 200: stateDiffSchema } },
      },
      async (request) => states.diff(request.params.projectId, request.params.id, request.query.from, request.query.to),
    );
    app.get(
      `${base}/:stateId`,
      {
        preValidation: projectGuard(members, 0),
        schema: { tags, params: itemParams, response: { 200: terraformStateSchema } },
      },
      async (request) => states.get(request.params.projectId, request.params.id, request.params.stateId),
    );
    app.get(
      `${base}/:stateId/download`,
      {
        preValidation: projectGuard(members, Permission.updateProject),
        schema: {
          tags,
          params: itemParams,
          response: { 200: rawBody('application/json', 'The state file as stored (an attachment)', jsonObject) },
        },
      },
      async (request, reply) => {
        const file = await states.download(request.params.projectId, request.params.id, request.params.stateId);
        return reply
          .header('content-disposition', `attachment; filename="${file.name}"`)
          .header('cache-control', 'no-store')
          .type('application/json')
          .send(file.state);
      },
    );
    app.delete(
      base,
      {
        preValidation: projectGuard(members, Permission.manageProjectResources),
        schema: { response: { 204: noContent }, tags, params: listParams },
      },
      async (request, reply) => {
        await states.purge(actor(request), request.params.projectId, request.params.id, null);
        return reply.status(204).send();
      },
    );
    app.delete(
      `${base}/:stateId`,
      {
        preValidation: projectGuard(members, Permission.manageProjectResources),
        schema: { response: { 204: noContent }, tags, params: itemParams },
      },
      async (request, reply) => {
        await states.purge(actor(request), request.params.projectId, request.params.id, request.params.stateId);
        return reply.status(204).send();
      },
    );
  };
}
