import { apiTokenCreateSchema, apiTokenCreatedSchema, apiTokenSchema } from '@gantry/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { callerToken, requireUser } from '../../platform/auth.js';
import type { TokensService } from './tokens.service.js';
import { noContent } from '../../platform/openapi-document.js';

/** The caller's own API tokens. */
export function tokensRoutes(tokens: TokensService): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/user/tokens',
      { schema: { tags: ['tokens'], response: { 200: z.array(apiTokenSchema) } } },
      async (request) => tokens.list(requireUser(request).id),
    );

    // The body is optional: the peer API's clients create tokens with none (they never expire).
    app.post(
      '/user/tokens',
      { schema: { tags: ['tokens'], body: apiTokenCreateSchema, response: { 201: apiTokenCreatedSchema } } },
      async (request, reply) => {
        const { token, value } = await tokens.create(
          requireUser(request).id,
          request.body?.expires_in_days,
          callerToken(request),
        );
        // The one answer that carries the value: `id` is the token, as the peer API has it.
        return reply.status(201).send({ ...token, id: value });
      },
    );

    app.delete(
      '/user/tokens/:id',
      {
        schema: {
          response: { 204: noContent },
          tags: ['tokens'],
          params: z.object({ id: z.string().min(1).max(200) }),
        },
      },
      async (request, reply) => {
        await tokens.delete(requireUser(request).id, request.params.id);
        return reply.status(204).send();
      },
    );
  };
}
