import { ErrorCodes } from '@gantry/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { AppError } from '../../platform/errors.js';
import type { BackendCaller, TerraformBackendService } from './terraform-backend.service.js';
import { jsonObject, noBody, rawBody } from '../../platform/openapi-document.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Who a Terraform HTTP backend request comes from, once its Basic credentials were checked. */
    terraformCaller?: BackendCaller;
  }
}

const params = z.object({ alias: z.string() });
const writeQuery = z.object({ ID: z.string().max(255).optional() });
const tags = ['terraform'];
/** What terraform's `http` backend and OpenTofu's send; LOCK/UNLOCK also as POST/DELETE on `…/lock`. */
const CUSTOM_METHODS = ['LOCK', 'UNLOCK'];

/**
 * Terraform's and OpenTofu's `http` state backend at `/api/terraform/{alias}`. The alias and
 * its Basic credentials are checked before the body is read (so no one uploads 64 MiB
 * unauthenticated); the body is kept as text, up to GANTRY_MAX_STATE_BYTES. No session or API
 * token opens these routes: the Authorization header belongs to the backend (`webhook` routes).
 */
export function terraformBackendRoutes(
  backend: TerraformBackendService,
  o: { maxStateBytes: number },
): FastifyPluginAsyncZod {
  return async (app) => {
    for (const m of CUSTOM_METHODS) if (!app.supportedMethods.includes(m)) app.addHttpMethod(m, { hasBody: true });
    // A state is stored exactly as sent; lock information is checked by the service.
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('*', { parseAs: 'string', bodyLimit: o.maxStateBytes }, (_request, body, done) =>
      done(null, body),
    );
    app.addHook('onSend', async (_request, reply, payload) => {
      if (reply.statusCode === 401) reply.header('www-authenticate', 'Basic realm="Gantry Terraform state"');
      return payload;
    });

    const authenticate = async (request: FastifyRequest) => {
      const alias = (request.params as { alias?: string }).alias ?? '';
      request.terraformCaller = await backend.authenticate(alias, request.headers.authorization, request.ip);
    };
    const caller = (request: FastifyRequest): BackendCaller => {
      if (!request.terraformCaller) throw new Error('terraform backend route without authentication');
      return request.terraformCaller;
    };
    const text = (request: FastifyRequest) => (typeof request.body === 'string' ? request.body : '');
    const opts = { config: { webhook: true }, onRequest: authenticate, bodyLimit: o.maxStateBytes };

    app.get(
      '/terraform/:alias',
      {
        ...opts,
        schema: {
          tags,
          params,
          response: {
            200: rawBody('application/json', 'The current state, as Terraform wrote it', jsonObject),
            204: noBody('No state yet'),
          },
        },
      },
      async (request, reply) => {
        const state = await backend.read(caller(request));
        // Terraform reads 204 (and 404) as "no state yet".
        if (state === null) return reply.status(204).send();
        return reply.header('cache-control', 'no-store').type('application/json').send(state);
      },
    );
    app.route({
      method: ['POST', 'PUT'],
      url: '/terraform/:alias',
      ...opts,
      schema: { tags, params, querystring: writeQuery, response: { 200: noBody('Stored') } },
      handler: async (request, reply) => {
        await backend.write(caller(request), text(request), (request.query as z.infer<typeof writeQuery>).ID);
        return reply.status(200).send();
      },
    });
    app.route({
      method: ['LOCK'],
      url: '/terraform/:alias',
      ...opts,
      schema: { tags, params, response: { 200: noBody('Locked') } },
      handler: async (request, reply) => {
        await backend.lock(caller(request), text(request));
        return reply.status(200).send();
      },
    });
    app.route({
      method: ['UNLOCK'],
      url: '/terraform/:alias',
      ...opts,
      schema: { tags, params, response: { 200: noBody('Unlocked') } },
      handler: async (request, reply) => {
        await backend.unlock(caller(request), text(request));
        return reply.status(200).send();
      },
    });
    app.post(
      '/terraform/:alias/lock',
      { ...opts, schema: { tags, params, response: { 200: noBody('Locked') } } },
      async (request, reply) => {
        await backend.lock(caller(request), text(request));
        return reply.status(200).send();
      },
    );
    app.delete(
      '/terraform/:alias/lock',
      { ...opts, schema: { tags, params, response: { 200: noBody('Unlocked') } } },
      async (request, reply) => {
        await backend.unlock(caller(request), text(request));
        return reply.status(200).send();
      },
    );
    app.delete('/terraform/:alias', { ...opts, schema: { tags, params } }, async (_request, reply) => {
      reply.header('allow', 'GET, POST, PUT, LOCK, UNLOCK');
      throw new AppError(405, 'The state is purged in Gantry by an owner or a manager, not through the backend', {
        code: ErrorCodes.statePurgeViaBackend,
      });
    });
  };
}
