import { SESSION_COOKIE, currentUserSchema, loginBodySchema, loginInfoSchema, type AuthMethods } from '@gantry/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { clearSessionCookie, requireUser, setSessionCookie } from '../../platform/auth.js';
import { presentCurrentUser } from '../users/users.presenter.js';
import type { AuthService } from './auth.service.js';

export interface AuthRoutesOptions {
  webHost: string;
  nonAdminCanCreateProject: boolean;
  authMethods: AuthMethods;
}

export function authRoutes(auth: AuthService, opts: AuthRoutesOptions): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/auth/login',
      { config: { public: true }, schema: { tags: ['auth'], response: { 200: loginInfoSchema } } },
      async () => ({ oidc_providers: [], login_with_password: true, auth_methods: opts.authMethods }),
    );

    app.post(
      '/auth/login',
      { config: { public: true }, schema: { tags: ['auth'], body: loginBodySchema } },
      async (request, reply) => {
        const value = await auth.login(request.body.auth, request.body.password, {
          ip: request.ip,
          userAgent: request.headers['user-agent'] ?? '',
        });
        setSessionCookie(request, reply, value, opts.webHost);
        return reply.status(204).send();
      },
    );

    app.post('/auth/logout', { config: { public: true }, schema: { tags: ['auth'] } }, async (request, reply) => {
      const cookie = request.cookies[SESSION_COOKIE];
      if (cookie) await auth.logout(cookie);
      clearSessionCookie(reply);
      return reply.status(204).send();
    });

    app.get('/user', { schema: { tags: ['auth'], response: { 200: currentUserSchema } } }, async (request) =>
      presentCurrentUser(requireUser(request), opts.nonAdminCanCreateProject),
    );
  };
}
