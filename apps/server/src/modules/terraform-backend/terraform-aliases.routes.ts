import {
  idParamSchema,
  Permission,
  terraformAliasInputSchema,
  terraformAliasSchema,
  terraformBackendSettingsSchema,
  coded,
  ErrorCodes,
} from '@gantry/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { requireUser } from '../../platform/auth.js';
import { projectGuard, type ProjectMembership } from '../../platform/permissions.js';
import type { Actor } from '../../platform/resource-routes.js';
import { presentAlias } from './terraform-aliases.presenter.js';
import type { TerraformAliasesService } from './terraform-aliases.service.js';
import { noContent } from '../../platform/openapi-document.js';

const workspaceParams = z.object({ projectId: idParamSchema, id: idParamSchema });
const aliasParams = workspaceParams.extend({
  aliasId: z.string().regex(/^[a-z0-9]{1,64}$/, coded('Invalid alias', ErrorCodes.aliasInvalid)),
});
const tags = ['inventory'];

const actor = (request: FastifyRequest): Actor => {
  const u = requireUser(request);
  return { id: u.id, admin: u.admin === 1 };
};

/**
 * Aliases of a workspace (`/inventory/{id}/terraform/aliases`, as Semaphore's) and its backend
 * switch. An alias answers the raw state, sensitive outputs included: listing, creating,
 * changing, rotating and deleting aliases needs updateProject (owners), as downloading a raw
 * state does (terraform-states.routes.ts). Managers turn the backend on or off (their tasks keep
 * their state there); any member may see whether it is on.
 */
export function terraformAliasesRoutes(
  aliases: TerraformAliasesService,
  members: ProjectMembership,
  webHost: string,
): FastifyPluginAsyncZod {
  /** GANTRY_WEB_HOST, or the origin the caller reached us at. */
  const base = (request: FastifyRequest) => webHost || `${request.protocol}://${request.host}`;
  const manage = projectGuard(members, Permission.manageProjectResources);
  /** The permission of a raw state download. */
  const rawState = projectGuard(members, Permission.updateProject);
  return async (app) => {
    const path = '/project/:projectId/inventory/:id/terraform';
    app.get(
      `${path}/aliases`,
      {
        preValidation: rawState,
        schema: { tags, params: workspaceParams, response: { 200: z.array(terraformAliasSchema) } },
      },
      async (request) =>
        (await aliases.list(request.params.projectId, request.params.id)).map((a) => presentAlias(a, base(request))),
    );
    app.post(
      `${path}/aliases`,
      {
        preValidation: rawState,
        schema: {
          tags,
          params: workspaceParams,
          body: terraformAliasInputSchema,
          response: { 201: terraformAliasSchema },
        },
      },
      async (request, reply) => {
        const row = await aliases.create(actor(request), request.params.projectId, request.params.id, request.body);
        return reply.status(201).send(presentAlias(row, base(request)));
      },
    );
    app.get(
      `${path}/aliases/:aliasId`,
      { preValidation: rawState, schema: { tags, params: aliasParams, response: { 200: terraformAliasSchema } } },
      async (request) =>
        presentAlias(
          await aliases.get(request.params.projectId, request.params.id, request.params.aliasId),
          base(request),
        ),
    );
    app.put(
      `${path}/aliases/:aliasId`,
      {
        preValidation: rawState,
        schema: { response: { 204: noContent }, tags, params: aliasParams, body: terraformAliasInputSchema },
      },
      async (request, reply) => {
        await aliases.update(
          actor(request),
          request.params.projectId,
          request.params.id,
          request.params.aliasId,
          request.body,
        );
        return reply.status(204).send();
      },
    );
    app.post(
      `${path}/aliases/:aliasId/rotate`,
      { preValidation: rawState, schema: { tags, params: aliasParams, response: { 200: terraformAliasSchema } } },
      async (request) =>
        presentAlias(
          await aliases.rotate(actor(request), request.params.projectId, request.params.id, request.params.aliasId),
          base(request),
        ),
    );
    app.delete(
      `${path}/aliases/:aliasId`,
      { preValidation: rawState, schema: { response: { 204: noContent }, tags, params: aliasParams } },
      async (request, reply) => {
        await aliases.delete(actor(request), request.params.projectId, request.params.id, request.params.aliasId);
        return reply.status(204).send();
      },
    );
    app.get(
      `${path}/backend`,
      {
        preValidation: projectGuard(members, 0),
        schema: { tags, params: workspaceParams, response: { 200: terraformBackendSettingsSchema } },
      },
      async (request) => aliases.settings(request.params.projectId, request.params.id),
    );
    app.put(
      `${path}/backend`,
      {
        preValidation: manage,
        schema: {
          tags,
          params: workspaceParams,
          body: terraformBackendSettingsSchema,
          response: { 200: terraformBackendSettingsSchema },
        },
      },
      async (request) => aliases.setSettings(actor(request), request.params.projectId, request.params.id, request.body),
    );
  };
}
