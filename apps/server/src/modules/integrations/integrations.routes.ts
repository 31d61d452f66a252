import {
  Permission,
  extractValueInputSchema,
  extractValueSchema,
  idParamSchema,
  integrationAliasSchema,
  integrationInputSchema,
  integrationSchema,
  matcherInputSchema,
  matcherSchema,
} from '@gantry/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireUser } from '../../platform/auth.js';
import { projectGuard, type ProjectMembership } from '../../platform/permissions.js';
import { resourceRoutes, type Actor } from '../../platform/resource-routes.js';
import type { IntegrationRulesService } from './integration-rules.service.js';
import { presentAlias, presentExtractValue, presentIntegration, presentMatcher } from './integrations.presenter.js';
import type { IntegrationsService } from './integrations.service.js';

export interface IntegrationsRoutesOptions {
  integrations: IntegrationsService;
  rules: IntegrationRulesService;
  members: ProjectMembership;
  /** GANTRY_WEB_HOST without a trailing slash, for absolute alias URLs ('' for relative ones). */
  webHost: string;
}

const projectParams = z.object({ projectId: idParamSchema });
const integrationParams = z.object({ projectId: idParamSchema, integrationId: idParamSchema });
const projectAliasParams = z.object({ projectId: idParamSchema, aliasId: idParamSchema });
const aliasParams = z.object({ projectId: idParamSchema, integrationId: idParamSchema, aliasId: idParamSchema });
const partParams = z.object({ projectId: idParamSchema, integrationId: idParamSchema, id: idParamSchema });

/**
 * Integration CRUD (the resource routes, changed with updateProject as spec 02 §6 says), aliases
 * of an integration or of the project (`/integrations/aliases`: a static segment, so it never
 * reaches the `:integrationId` routes), matchers and extracted values. Reading needs membership.
 */
export function integrationsRoutes(o: IntegrationsRoutesOptions): FastifyPluginAsyncZod {
  return async (app) => {
    const read = projectGuard(o.members, 0);
    const change = projectGuard(o.members, Permission.updateProject);
    const actor = (u: { id: number; admin: number }): Actor => ({ id: u.id, admin: u.admin === 1 });
    const tags = ['integrations'];
    const base = '/project/:projectId/integrations';

    await app.register(
      resourceRoutes({
        path: 'integrations',
        tag: 'integrations',
        members: o.members,
        service: o.integrations,
        present: presentIntegration,
        itemSchema: integrationSchema,
        createSchema: integrationInputSchema,
        updateSchema: integrationInputSchema,
        changePermission: Permission.updateProject,
      }),
    );

    // Project-level aliases: they reach every searchable integration of the project.
    app.get(
      `${base}/aliases`,
      {
        preValidation: read,
        schema: { tags, params: projectParams, response: { 200: z.array(integrationAliasSchema) } },
      },
      async (request) =>
        (await o.integrations.aliases(request.params.projectId, null)).map((a) => presentAlias(a, o.webHost)),
    );
    app.post(
      `${base}/aliases`,
      { preValidation: change, schema: { tags, params: projectParams, response: { 201: integrationAliasSchema } } },
      async (request, reply) => {
        const row = await o.integrations.createAlias(actor(requireUser(request)), request.params.projectId, null);
        return reply.status(201).send(presentAlias(row, o.webHost));
      },
    );
    app.delete(
      `${base}/aliases/:aliasId`,
      { preValidation: change, schema: { tags, params: projectAliasParams } },
      async (request, reply) => {
        await o.integrations.deleteAlias(
          actor(requireUser(request)),
          request.params.projectId,
          null,
          request.params.aliasId,
        );
        return reply.status(204).send();
      },
    );

    // Aliases of one integration.
    app.get(
      `${base}/:integrationId/aliases`,
      {
        preValidation: read,
        schema: { tags, params: integrationParams, response: { 200: z.array(integrationAliasSchema) } },
      },
      async (request) =>
        (await o.integrations.aliases(request.params.projectId, request.params.integrationId)).map((a) =>
          presentAlias(a, o.webHost),
        ),
    );
    app.post(
      `${base}/:integrationId/aliases`,
      { preValidation: change, schema: { tags, params: integrationParams, response: { 201: integrationAliasSchema } } },
      async (request, reply) => {
        const row = await o.integrations.createAlias(
          actor(requireUser(request)),
          request.params.projectId,
          request.params.integrationId,
        );
        return reply.status(201).send(presentAlias(row, o.webHost));
      },
    );
    app.delete(
      `${base}/:integrationId/aliases/:aliasId`,
      { preValidation: change, schema: { tags, params: aliasParams } },
      async (request, reply) => {
        await o.integrations.deleteAlias(
          actor(requireUser(request)),
          request.params.projectId,
          request.params.integrationId,
          request.params.aliasId,
        );
        return reply.status(204).send();
      },
    );

    // Matchers.
    app.get(
      `${base}/:integrationId/matchers`,
      { preValidation: read, schema: { tags, params: integrationParams, response: { 200: z.array(matcherSchema) } } },
      async (request) =>
        (await o.rules.matchers(request.params.projectId, request.params.integrationId)).map(presentMatcher),
    );
    app.post(
      `${base}/:integrationId/matchers`,
      {
        preValidation: change,
        schema: { tags, params: integrationParams, body: matcherInputSchema, response: { 201: matcherSchema } },
      },
      async (request, reply) => {
        const row = await o.rules.createMatcher(
          actor(requireUser(request)),
          request.params.projectId,
          request.params.integrationId,
          request.body,
        );
        return reply.status(201).send(presentMatcher(row));
      },
    );
    app.get(
      `${base}/:integrationId/matchers/:id`,
      { preValidation: read, schema: { tags, params: partParams, response: { 200: matcherSchema } } },
      async (request) =>
        presentMatcher(
          await o.rules.getMatcher(request.params.projectId, request.params.integrationId, request.params.id),
        ),
    );
    app.put(
      `${base}/:integrationId/matchers/:id`,
      { preValidation: change, schema: { tags, params: partParams, body: matcherInputSchema } },
      async (request, reply) => {
        await o.rules.updateMatcher(
          actor(requireUser(request)),
          request.params.projectId,
          request.params.integrationId,
          request.params.id,
          request.body,
        );
        return reply.status(204).send();
      },
    );
    app.delete(
      `${base}/:integrationId/matchers/:id`,
      { preValidation: change, schema: { tags, params: partParams } },
      async (request, reply) => {
        await o.rules.deleteMatcher(
          actor(requireUser(request)),
          request.params.projectId,
          request.params.integrationId,
          request.params.id,
        );
        return reply.status(204).send();
      },
    );

    // Extracted values.
    app.get(
      `${base}/:integrationId/values`,
      {
        preValidation: read,
        schema: { tags, params: integrationParams, response: { 200: z.array(extractValueSchema) } },
      },
      async (request) =>
        (await o.rules.values(request.params.projectId, request.params.integrationId)).map(presentExtractValue),
    );
    app.post(
      `${base}/:integrationId/values`,
      {
        preValidation: change,
        schema: {
          tags,
          params: integrationParams,
          body: extractValueInputSchema,
          response: { 201: extractValueSchema },
        },
      },
      async (request, reply) => {
        const row = await o.rules.createValue(
          actor(requireUser(request)),
          request.params.projectId,
          request.params.integrationId,
          request.body,
        );
        return reply.status(201).send(presentExtractValue(row));
      },
    );
    app.get(
      `${base}/:integrationId/values/:id`,
      { preValidation: read, schema: { tags, params: partParams, response: { 200: extractValueSchema } } },
      async (request) =>
        presentExtractValue(
          await o.rules.getValue(request.params.projectId, request.params.integrationId, request.params.id),
        ),
    );
    app.put(
      `${base}/:integrationId/values/:id`,
      { preValidation: change, schema: { tags, params: partParams, body: extractValueInputSchema } },
      async (request, reply) => {
        await o.rules.updateValue(
          actor(requireUser(request)),
          request.params.projectId,
          request.params.integrationId,
          request.params.id,
          request.body,
        );
        return reply.status(204).send();
      },
    );
    app.delete(
      `${base}/:integrationId/values/:id`,
      { preValidation: change, schema: { tags, params: partParams } },
      async (request, reply) => {
        await o.rules.deleteValue(
          actor(requireUser(request)),
          request.params.projectId,
          request.params.integrationId,
          request.params.id,
        );
        return reply.status(204).send();
      },
    );
  };
}
