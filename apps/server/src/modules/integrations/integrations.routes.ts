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
import { START_TARGET_BOUND_FIELDS } from '../schedules/workflow-starter.port.js';
import { z, type ZodType } from 'zod';
import { requireUser } from '../../platform/auth.js';
import { projectGuard, type ProjectMembership } from '../../platform/permissions.js';
import { resourceRoutes, type Actor } from '../../platform/resource-routes.js';
import type { IntegrationRulesService } from './integration-rules.service.js';
import { presentAlias, presentExtractValue, presentIntegration, presentMatcher } from './integrations.presenter.js';
import type { IntegrationsService } from './integrations.service.js';
import { noContent } from '../../platform/openapi-document.js';

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
 * reaches the `:integrationId` routes), matchers and extracted values. Reading needs membership,
 * except aliases: they need updateProject.
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
        // A new auth method brings its own default header (Authorization, X-Hub-Signature-256).
        boundFields: { auth_header: 'auth_method', ...START_TARGET_BOUND_FIELDS },
        changePermission: Permission.updateProject,
      }),
    );

    // Project-level aliases: they reach every searchable integration of the project. An alias is
    // the address anyone can start tasks at, so only those who may change integrations see them.
    app.get(
      `${base}/aliases`,
      {
        preValidation: change,
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
      { preValidation: change, schema: { response: { 204: noContent }, tags, params: projectAliasParams } },
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

    // Aliases of one integration (as above: updateProject only).
    app.get(
      `${base}/:integrationId/aliases`,
      {
        preValidation: change,
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
      { preValidation: change, schema: { response: { 204: noContent }, tags, params: aliasParams } },
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

    const parts = { read, change, actor, tags, base };
    await app.register(
      partRoutes(parts, {
        segment: 'matchers',
        itemSchema: matcherSchema,
        inputSchema: matcherInputSchema,
        present: presentMatcher,
        list: (p, i) => o.rules.matchers(p, i),
        get: (p, i, id) => o.rules.getMatcher(p, i, id),
        create: (a, p, i, body) => o.rules.createMatcher(a, p, i, body),
        update: (a, p, i, id, body) => o.rules.updateMatcher(a, p, i, id, body),
        remove: (a, p, i, id) => o.rules.deleteMatcher(a, p, i, id),
      }),
    );
    await app.register(
      partRoutes(parts, {
        segment: 'values',
        itemSchema: extractValueSchema,
        inputSchema: extractValueInputSchema,
        present: presentExtractValue,
        list: (p, i) => o.rules.values(p, i),
        get: (p, i, id) => o.rules.getValue(p, i, id),
        create: (a, p, i, body) => o.rules.createValue(a, p, i, body),
        update: (a, p, i, id, body) => o.rules.updateValue(a, p, i, id, body),
        remove: (a, p, i, id) => o.rules.deleteValue(a, p, i, id),
      }),
    );
  };
}

interface PartGuards {
  read: ReturnType<typeof projectGuard>;
  change: ReturnType<typeof projectGuard>;
  actor(u: { id: number; admin: number }): Actor;
  tags: string[];
  base: string;
}

/** What an integration's matchers and extracted values each offer. */
interface PartRoutesOptions<Row, In, Out> {
  segment: 'matchers' | 'values';
  itemSchema: ZodType<Out>;
  inputSchema: ZodType<In>;
  present(row: Row): Out;
  list(projectId: number, integrationId: number): Promise<Row[]>;
  get(projectId: number, integrationId: number, id: number): Promise<Row>;
  create(actor: Actor, projectId: number, integrationId: number, body: In): Promise<Row>;
  update(actor: Actor, projectId: number, integrationId: number, id: number, body: In): Promise<void>;
  remove(actor: Actor, projectId: number, integrationId: number, id: number): Promise<void>;
}

/** List, create, read, update and delete of one kind of an integration's parts. */
function partRoutes<Row, In, Out>(g: PartGuards, o: PartRoutesOptions<Row, In, Out>): FastifyPluginAsyncZod {
  return async (app) => {
    const { read, change, tags } = g;
    const list = `${g.base}/:integrationId/${o.segment}`;
    const item = `${list}/:id`;
    // Erased to ZodType: the generic Out defeats the type provider's reply inference, while the
    // schema itself still shapes and checks every answer at run time.
    const schema = o.itemSchema as ZodType;
    app.get(
      list,
      { preValidation: read, schema: { tags, params: integrationParams, response: { 200: z.array(schema) } } },
      async (request) => (await o.list(request.params.projectId, request.params.integrationId)).map(o.present),
    );
    app.post(
      list,
      {
        preValidation: change,
        schema: { tags, params: integrationParams, body: o.inputSchema, response: { 201: schema } },
      },
      async (request, reply) => {
        const row = await o.create(
          g.actor(requireUser(request)),
          request.params.projectId,
          request.params.integrationId,
          request.body as In,
        );
        return reply.status(201).send(o.present(row));
      },
    );
    app.get(
      item,
      { preValidation: read, schema: { tags, params: partParams, response: { 200: schema } } },
      async (request) =>
        o.present(await o.get(request.params.projectId, request.params.integrationId, request.params.id)),
    );
    app.put(
      item,
      {
        preValidation: change,
        schema: { response: { 204: noContent }, tags, params: partParams, body: o.inputSchema },
      },
      async (request, reply) => {
        await o.update(
          g.actor(requireUser(request)),
          request.params.projectId,
          request.params.integrationId,
          request.params.id,
          request.body as In,
        );
        return reply.status(204).send();
      },
    );
    app.delete(
      item,
      { preValidation: change, schema: { response: { 204: noContent }, tags, params: partParams } },
      async (request, reply) => {
        await o.remove(
          g.actor(requireUser(request)),
          request.params.projectId,
          request.params.integrationId,
          request.params.id,
        );
        return reply.status(204).send();
      },
    );
  };
}
