import { ErrorCodes } from '@gantry/contracts';
import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import { safeEqual, sha256 } from '../platform/crypto.js';
import { NotFoundError, UnauthorizedError } from '../platform/errors.js';
import type { Metrics } from './metrics.js';

/**
 * Times every answered request into the HTTP histogram, labelled by the route's pattern
 * (`/api/project/:project_id/tasks/:task_id`), so ids never multiply the series.
 */
export function registerHttpMetrics(app: FastifyInstance, metrics: Metrics): void {
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.is404 ? 'unmatched' : (request.routeOptions.url ?? 'unmatched');
    metrics.observeRequest(request.method, route, reply.statusCode, reply.elapsedTime / 1000);
    done();
  });
}

/**
 * GET /metrics, outside /api and session auth: 404 like any unknown route while off; with a
 * token, 401 unless `Authorization: Bearer <token>` (compared as digests in constant time).
 */
export function metricsRoutes(metrics: Metrics | null, token: string | undefined): FastifyPluginAsync {
  return async (app) => {
    // `webhook`: the Authorization header is the scraper's, not a user's token for the auth hook.
    app.get('/metrics', { config: { webhook: true }, schema: { hide: true } }, async (request, reply) => {
      if (!metrics)
        throw new NotFoundError(`Route ${request.method} /metrics not found`, { code: ErrorCodes.routeNotFound });
      if (token !== undefined) {
        const given = request.headers.authorization?.match(/^bearer\s+(\S+)\s*$/i)?.[1] ?? '';
        if (!safeEqual(sha256(given), sha256(token))) {
          reply.header('www-authenticate', 'Bearer');
          throw new UnauthorizedError('A valid metrics token is required', { code: ErrorCodes.metricsTokenRequired });
        }
      }
      return reply
        .header('cache-control', 'no-store')
        .type(metrics.contentType)
        .send(await metrics.text());
    });
  };
}
