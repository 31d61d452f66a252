import { systemInfoSchema, type AuthMethods } from '@gantry/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';

export interface SystemInfoOptions {
  version: string;
  webHost: string;
  authMethods: AuthMethods;
  useRemoteRunner: boolean;
}

export function systemRoutes(opts: SystemInfoOptions): FastifyPluginAsyncZod {
  return async (app) => {
    app.get('/ping', { config: { public: true }, schema: { tags: ['system'], response: { 200: z.string() } } }, async (_req, reply) =>
      reply.type('text/plain').send('pong'),
    );

    // Reachable while the second sign-in step is pending too: nothing in it is the user's.
    app.get('/info', { config: { secondFactorPending: true, enrolment: true }, schema: { tags: ['system'], response: { 200: systemInfoSchema } } }, async () => ({
      version: opts.version,
      web_host: opts.webHost,
      use_remote_runner: opts.useRemoteRunner,
      // Gantry has one edition: the peer's paid-only features are simply available.
      premium_features: { project_runners: true },
      auth_methods: opts.authMethods,
    }));

    app.get('/openapi.json', { config: { public: true }, schema: { hide: true } }, async () => app.swagger());
  };
}
