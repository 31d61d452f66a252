import {
  Permission,
  idParamSchema,
  notificationDeliverySchema,
  notificationDestinationInputSchema,
  notificationDestinationSchema,
  notificationRuleInputSchema,
  notificationRuleSchema,
  notificationTestResultSchema,
} from '@gantry/contracts';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireAdmin, requireUser } from '../../platform/auth.js';
import { projectGuard, type ProjectMembership } from '../../platform/permissions.js';
import type { Actor } from '../../platform/resource-routes.js';
import type { DestinationsService } from './destinations.service.js';
import type { RulesService } from './rules.service.js';
import { noContent } from '../../platform/openapi-document.js';
import { examples, withExample } from '../../platform/openapi-examples.js';

const destinationIn = withExample(notificationDestinationInputSchema, examples.destinationCreate);
const destinationOut = withExample(notificationDestinationSchema, examples.destination);

export interface NotificationRoutingRoutesOptions {
  destinations: DestinationsService;
  rules: RulesService;
  members: ProjectMembership;
}

/** The most deliveries one page of the log answers. */
const DELIVERIES_PAGE_MAX = 200;

type Guard = (request: FastifyRequest) => Promise<void>;

/**
 * Destinations and rules of a project (`/project/:projectId/...`: reading needs membership,
 * changes updateProject, as integrations) and global ones (`/notification-...`: admins only).
 */
export function notificationRoutingRoutes(o: NotificationRoutingRoutesOptions): FastifyPluginAsyncZod {
  return async (app) => {
    const admin: Guard = async (request) => void requireAdmin(request);
    await app.register(
      scopedRoutes(o, {
        base: '/project/:projectId',
        params: { projectId: idParamSchema },
        read: projectGuard(o.members, 0),
        change: projectGuard(o.members, Permission.updateProject),
        projectId: (params) => (params as { projectId: number }).projectId,
      }),
    );
    await app.register(scopedRoutes(o, { base: '', params: {}, read: admin, change: admin, projectId: () => null }));
  };
}

interface Scope {
  base: string;
  params: { projectId?: typeof idParamSchema };
  read: Guard;
  change: Guard;
  projectId(params: unknown): number | null;
}

function scopedRoutes(o: NotificationRoutingRoutesOptions, s: Scope): FastifyPluginAsyncZod {
  return async (app) => {
    const tags = ['notifications'];
    const actor = (request: FastifyRequest): Actor => {
      const u = requireUser(request);
      return { id: u.id, admin: u.admin === 1 };
    };
    const list = z.object(s.params);
    const destination = z.object({ ...s.params, destinationId: idParamSchema });
    const rule = z.object({ ...s.params, ruleId: idParamSchema });
    const dBase = `${s.base}/notification-destinations`;
    const rBase = `${s.base}/notification-rules`;
    const { read, change } = s;

    app.get(
      dBase,
      {
        preValidation: read,
        schema: { tags, params: list, response: { 200: z.array(destinationOut) } },
      },
      async (request) => o.destinations.list(s.projectId(request.params)),
    );
    app.post(
      dBase,
      {
        preValidation: change,
        schema: {
          tags,
          params: list,
          body: destinationIn,
          response: { 201: destinationOut },
        },
      },
      async (request, reply) =>
        reply.status(201).send(await o.destinations.create(actor(request), s.projectId(request.params), request.body)),
    );
    app.get(
      `${dBase}/:destinationId`,
      { preValidation: read, schema: { tags, params: destination, response: { 200: destinationOut } } },
      async (request) => o.destinations.get(s.projectId(request.params), request.params.destinationId),
    );
    app.put(
      `${dBase}/:destinationId`,
      {
        preValidation: change,
        schema: { response: { 204: noContent }, tags, params: destination, body: destinationIn },
      },
      async (request, reply) => {
        await o.destinations.update(
          actor(request),
          s.projectId(request.params),
          request.params.destinationId,
          request.body,
        );
        return reply.status(204).send();
      },
    );
    app.delete(
      `${dBase}/:destinationId`,
      { preValidation: change, schema: { response: { 204: noContent }, tags, params: destination } },
      async (request, reply) => {
        await o.destinations.delete(actor(request), s.projectId(request.params), request.params.destinationId);
        return reply.status(204).send();
      },
    );
    // The receiver's answer, 200 also when it refused: the console shows what it said.
    app.post(
      `${dBase}/:destinationId/test`,
      { preValidation: change, schema: { tags, params: destination, response: { 200: notificationTestResultSchema } } },
      async (request) => o.destinations.test(s.projectId(request.params), request.params.destinationId),
    );
    app.get(
      `${dBase}/:destinationId/deliveries`,
      {
        preValidation: read,
        schema: {
          tags,
          params: destination,
          querystring: z.object({
            limit: z.coerce.number().int().min(1).max(DELIVERIES_PAGE_MAX).optional(),
            before: idParamSchema.optional(),
          }),
          response: { 200: z.array(notificationDeliverySchema) },
        },
      },
      async (request) =>
        o.destinations.deliveries(
          s.projectId(request.params),
          request.params.destinationId,
          request.query.limit ?? 50,
          request.query.before,
        ),
    );

    app.get(
      rBase,
      {
        preValidation: read,
        schema: {
          tags,
          params: list,
          querystring: z.object({ template_id: idParamSchema.optional() }),
          response: { 200: z.array(notificationRuleSchema) },
        },
      },
      async (request) => o.rules.list(s.projectId(request.params), request.query.template_id),
    );
    app.post(
      rBase,
      {
        preValidation: change,
        schema: { tags, params: list, body: notificationRuleInputSchema, response: { 201: notificationRuleSchema } },
      },
      async (request, reply) =>
        reply.status(201).send(await o.rules.create(actor(request), s.projectId(request.params), request.body)),
    );
    app.get(
      `${rBase}/:ruleId`,
      { preValidation: read, schema: { tags, params: rule, response: { 200: notificationRuleSchema } } },
      async (request) => o.rules.get(s.projectId(request.params), request.params.ruleId),
    );
    app.put(
      `${rBase}/:ruleId`,
      {
        preValidation: change,
        schema: { response: { 204: noContent }, tags, params: rule, body: notificationRuleInputSchema },
      },
      async (request, reply) => {
        await o.rules.update(actor(request), s.projectId(request.params), request.params.ruleId, request.body);
        return reply.status(204).send();
      },
    );
    app.delete(
      `${rBase}/:ruleId`,
      { preValidation: change, schema: { response: { 204: noContent }, tags, params: rule } },
      async (request, reply) => {
        await o.rules.delete(actor(request), s.projectId(request.params), request.params.ruleId);
        return reply.status(204).send();
      },
    );
  };
}
