import {
  idParamSchema,
  identityMappingInputSchema,
  identityMappingSchema,
  identitySourceSchema,
} from '@gantry/contracts';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireAdmin } from '../../platform/auth.js';
import { presentMapping } from './mappings.presenter.js';
import type { MappingsService } from './mappings.service.js';
import { noContent } from '../../platform/openapi-document.js';

const params = z.object({ id: idParamSchema });
const tags = ['identity'];

/** Group to role mapping rules: admins only (others 403). */
export function mappingsRoutes(mappings: MappingsService): FastifyPluginAsyncZod {
  return async (app) => {
    // Checked before the body is read: a non-admin gets 403 whatever they send.
    const admin = async (request: FastifyRequest) => {
      requireAdmin(request);
    };

    app.get(
      '/identity/mappings',
      { preValidation: admin, schema: { tags, response: { 200: z.array(identityMappingSchema) } } },
      async () => (await mappings.list()).map(presentMapping),
    );

    app.get(
      '/identity/sources',
      { preValidation: admin, schema: { tags, response: { 200: z.array(identitySourceSchema) } } },
      () => mappings.listSources(),
    );

    app.post(
      '/identity/mappings',
      {
        preValidation: admin,
        schema: { tags, body: identityMappingInputSchema, response: { 201: identityMappingSchema } },
      },
      async (request, reply) => {
        return reply.status(201).send(presentMapping(await mappings.create(request.body)));
      },
    );

    app.put(
      '/identity/mappings/:id',
      {
        preValidation: admin,
        schema: { tags, params, body: identityMappingInputSchema, response: { 200: identityMappingSchema } },
      },
      async (request) => {
        return presentMapping(await mappings.update(request.params.id, request.body));
      },
    );

    app.delete(
      '/identity/mappings/:id',
      { preValidation: admin, schema: { response: { 204: noContent }, tags, params } },
      async (request, reply) => {
        await mappings.delete(request.params.id);
        return reply.status(204).send();
      },
    );
  };
}
