import { Permission, idParamSchema, templateSchema, ErrorCodes } from '@gantry/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireUser } from '../../platform/auth.js';
import { NotFoundError } from '../../platform/errors.js';
import { projectGuard, type ProjectMembership } from '../../platform/permissions.js';
import { presentTemplate } from './templates.presenter.js';
import type { TemplatesService } from './templates.service.js';
import { noContent } from '../../platform/openapi-document.js';

const itemParams = z.object({ projectId: idParamSchema, id: idParamSchema });
const workspaceParams = itemParams.extend({ inventoryId: idParamSchema });
const WORKSPACE_ACTIONS = ['attach', 'detach', 'set_default'] as const;

/** Extras beside the resource routes: the inline description, workspaces, state summary and the templates of a view. */
export type StateSummary = (
  templateId: number,
) => { serial: number; terraform_version: string; resources: string[]; outputs: string[] } | null;

/** What the state summary answers (loose: whatever else the summary carries still goes out). */
const stateSummarySchema = z
  .object({
    serial: z.number(),
    terraform_version: z.string(),
    resources: z.array(z.string()),
    outputs: z.array(z.string()),
  })
  .loose();

export function templatesExtraRoutes(
  templates: TemplatesService,
  members: ProjectMembership,
  stateSummary: StateSummary,
): FastifyPluginAsyncZod {
  return async (app) => {
    app.put(
      '/project/:projectId/templates/:id/description',
      {
        preValidation: projectGuard(members, Permission.manageProjectResources),
        schema: {
          response: { 204: noContent },
          tags: ['templates'],
          params: itemParams,
          body: z.object({ description: z.string().max(10_000) }),
        },
      },
      async (request, reply) => {
        const u = requireUser(request);
        await templates.setDescription(
          { id: u.id, admin: u.admin === 1 },
          request.params.projectId,
          request.params.id,
          request.body.description,
        );
        return reply.status(204).send();
      },
    );

    for (const action of WORKSPACE_ACTIONS) {
      app.post(
        `/project/:projectId/templates/:id/inventory/:inventoryId/${action}`,
        {
          preValidation: projectGuard(members, Permission.manageProjectResources),
          schema: { response: { 204: noContent }, tags: ['templates'], params: workspaceParams },
        },
        async (request, reply) => {
          const u = requireUser(request);
          const actor = { id: u.id, admin: u.admin === 1 };
          const { projectId, id, inventoryId } = request.params;
          if (action === 'attach') await templates.attachWorkspace(actor, projectId, id, inventoryId);
          else if (action === 'detach') await templates.detachWorkspace(actor, projectId, id, inventoryId);
          else await templates.setDefaultWorkspace(actor, projectId, id, inventoryId);
          return reply.status(204).send();
        },
      );
    }

    app.get(
      '/project/:projectId/templates/:id/terraform/state',
      {
        preValidation: projectGuard(members, 0),
        schema: { tags: ['templates'], params: itemParams, response: { 200: stateSummarySchema } },
      },
      async (request) => {
        await templates.get(request.params.projectId, request.params.id);
        const summary = stateSummary(request.params.id);
        if (!summary) throw new NotFoundError('No state available.', { code: ErrorCodes.stateNotFound });
        return summary;
      },
    );

    app.get(
      '/project/:projectId/views/:id/templates',
      {
        preValidation: projectGuard(members, 0),
        schema: { tags: ['views'], params: itemParams, response: { 200: z.array(templateSchema) } },
      },
      async (request) =>
        (await templates.list(request.params.projectId, { view_id: String(request.params.id) })).map(presentTemplate),
    );
  };
}
