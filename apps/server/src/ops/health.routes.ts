import { ErrorCodes } from '@gantry/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { ReadinessService } from './readiness.service.js';

const checksSchema = z.object({ database: z.string(), migrations: z.string(), bus: z.string(), shutdown: z.string().optional() });

/**
 * Probes for load balancers and supervisors, under /api and public: `/health` answers while the
 * process is up, `/ready` only while this node can serve (503 names the failed check).
 */
export function healthRoutes(readiness: ReadinessService): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/health',
      {
        config: { public: true },
        schema: { tags: ['system'], response: { 200: z.object({ status: z.literal('ok') }) } },
      },
      async (_request, reply) => {
        reply.header('cache-control', 'no-store');
        return { status: 'ok' as const };
      },
    );

    app.get(
      '/ready',
      {
        config: { public: true },
        schema: {
          tags: ['system'],
          response: {
            200: z.object({ status: z.literal('ready'), checks: checksSchema }),
            503: z.object({
              status: z.literal('unavailable'),
              error: z.string(),
              code: z.literal(ErrorCodes.notReady),
              checks: checksSchema,
            }),
          },
        },
      },
      async (request, reply) => {
        reply.header('cache-control', 'no-store');
        const { ready, checks, failure } = await readiness.check();
        if (ready) return { status: 'ready' as const, checks };
        const failed = Object.entries(checks)
          .filter(([, v]) => v !== 'ok' && v !== 'not checked')
          .map(([k]) => k);
        request.log.warn({ checks, err: failure }, 'not ready');
        return reply
          .status(503)
          .send({ status: 'unavailable', error: `Not ready: ${failed.join(', ')}`, code: ErrorCodes.notReady, checks });
      },
    );
  };
}
