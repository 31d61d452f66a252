import {
  SESSION_COOKIE,
  currentUserSchema,
  loginBodySchema,
  loginInfoSchema,
  recoveryBodySchema,
  secondFactorsSchema,
  verifyBodySchema,
  type AuthMethods,
  ErrorCodes,
} from '@gantry/contracts';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { clearSessionCookie, requireUser, setSessionCookie } from '../../platform/auth.js';
import { ForbiddenError, UnauthorizedError } from '../../platform/errors.js';
import { presentCurrentUser } from '../users/users.presenter.js';
import type { AuthService } from './auth.service.js';
import type { PublicProvider } from './oidc.service.js';
import { noContent } from '../../platform/openapi-document.js';

export interface AuthRoutesOptions {
  webHost: string;
  nonAdminCanCreateProject: boolean;
  authMethods: AuthMethods;
  /** The external sign-in buttons (never their secrets). */
  oidcProviders: PublicProvider[];
  /** Password sign-in refused (403): external providers only. Users are still managed by the CLI. */
  passwordLoginDisabled: boolean;
}

export function authRoutes(auth: AuthService, opts: AuthRoutesOptions): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/auth/login',
      { config: { public: true }, schema: { tags: ['auth'], response: { 200: loginInfoSchema } } },
      async () => ({
        oidc_providers: opts.oidcProviders,
        login_with_password: !opts.passwordLoginDisabled,
        auth_methods: opts.authMethods,
      }),
    );

    app.post(
      '/auth/login',
      { config: { public: true }, schema: { response: { 204: noContent }, tags: ['auth'], body: loginBodySchema } },
      async (request, reply) => {
        if (opts.passwordLoginDisabled)
          throw new ForbiddenError('Sign-in with a password is disabled on this server', {
            code: ErrorCodes.passwordLoginDisabled,
          });
        const value = await auth.login(request.body.auth, request.body.password, clientOf(request));
        setSessionCookie(request, reply, value, opts.webHost);
        return reply.status(204).send();
      },
    );

    // The second sign-in step; reachable by a session that waits for it (see platform/auth.ts).
    app.post(
      '/auth/verify',
      {
        config: { secondFactorPending: true },
        schema: { response: { 204: noContent }, tags: ['auth'], body: verifyBodySchema },
      },
      async (request, reply) => {
        await auth.verify(sessionCookie(request.cookies), request.body.passcode, clientOf(request));
        return reply.status(204).send();
      },
    );

    // Which second steps the user has: the console shows only those (additive to Semaphore's API).
    app.get(
      '/auth/second-factors',
      { config: { secondFactorPending: true }, schema: { tags: ['auth'], response: { 200: secondFactorsSchema } } },
      async (request) => auth.secondFactors(sessionCookie(request.cookies)),
    );

    app.post(
      '/auth/recovery',
      {
        config: { secondFactorPending: true },
        schema: { response: { 204: noContent }, tags: ['auth'], body: recoveryBodySchema },
      },
      async (request, reply) => {
        await auth.recover(sessionCookie(request.cookies), request.body.recovery_code, clientOf(request));
        return reply.status(204).send();
      },
    );

    app.post(
      '/auth/logout',
      { config: { public: true }, schema: { response: { 204: noContent }, tags: ['auth'] } },
      async (request, reply) => {
        const cookie = request.cookies[SESSION_COOKIE];
        if (cookie) await auth.logout(cookie);
        clearSessionCookie(reply);
        return reply.status(204).send();
      },
    );

    // Also while the user must still set up two-factor sign-in: the console needs who is signed in.
    app.get(
      '/user',
      { config: { enrolment: true }, schema: { tags: ['auth'], response: { 200: currentUserSchema } } },
      async (request) => presentCurrentUser(requireUser(request), opts.nonAdminCanCreateProject),
    );
  };
}

function clientOf(request: FastifyRequest) {
  return { ip: request.ip, userAgent: request.headers['user-agent'] ?? '' };
}

/** The session cookie's value; the second step belongs to a session, never to a token. */
function sessionCookie(cookies: Record<string, string | undefined>): string {
  const value = cookies[SESSION_COOKIE];
  if (!value) throw new UnauthorizedError();
  return value;
}
