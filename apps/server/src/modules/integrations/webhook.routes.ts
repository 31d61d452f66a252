import { INTEGRATION_BODY_LIMIT, Messages, ErrorCodes } from '@gantry/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { NotFoundError } from '../../platform/errors.js';
import { Delivery } from './webhook-read.js';
import type { WebhookService } from './webhook.service.js';
import { noBody } from '../../platform/openapi-document.js';

/**
 * `POST /api/integrations/{alias}`: called by other servers, so no session, token or cross-site
 * check (config `webhook`). The body stays a raw Buffer whatever its type, since signatures are
 * over the exact bytes; more than INTEGRATION_BODY_LIMIT is a 413 before anything runs. An
 * unknown alias and a delivery no integration authenticates get the same 404, so aliases cannot
 * be probed; an authenticated delivery gets 204 whether or not a task started, and a repeat of
 * one already taken (a GitHub/Bitbucket delivery with the same delivery id or the same body, a
 * timestamped hmac delivery with the same timestamp and body) gets 200 with the same empty body.
 */
export function webhookRoutes(webhooks: WebhookService): FastifyPluginAsyncZod {
  return async (app) => {
    // Scoped to this plugin: the API's JSON parser elsewhere is untouched.
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: INTEGRATION_BODY_LIMIT }, (_request, body, done) =>
      done(null, body),
    );

    app.post(
      '/integrations/:alias',
      {
        config: { webhook: true },
        bodyLimit: INTEGRATION_BODY_LIMIT,
        schema: {
          tags: ['integrations'],
          params: z.object({ alias: z.string() }),
          response: { 200: noBody('A repeated delivery, already handled'), 204: noBody('Delivered') },
        },
      },
      async (request, reply) => {
        const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
        const result = await webhooks.receive(request.params.alias, new Delivery(request.headers, body), (err) =>
          request.log.error({ err }, 'webhook delivery failed'),
        );
        if (!result.authenticated) throw new NotFoundError(Messages.notFound, { code: ErrorCodes.notFound });
        return reply.status(result.repeated ? 200 : 204).send();
      },
    );
  };
}
