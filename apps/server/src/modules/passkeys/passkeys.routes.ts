import {
  idParamSchema,
  passkeyAssertionSchema,
  passkeyCreateSchema,
  passkeyOptionsSchema,
  passkeyProofSchema,
  passkeyRenameSchema,
  passkeySchema,
  PASSKEY_CHALLENGE_MS,
  SESSION_COOKIE,
} from '@gantry/contracts';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireUser, setSessionCookie } from '../../platform/auth.js';
import { UnauthorizedError } from '../../platform/errors.js';
import type { PasskeysService } from './passkeys.service.js';
import { noContent } from '../../platform/openapi-document.js';

/** Binds a passwordless sign-in challenge to the browser that asked for it. */
export const PASSKEY_SIGN_IN_COOKIE = 'gantry_passkey';
const SIGN_IN_PATH = '/api/auth/passkey/login';

const params = z.object({ id: idParamSchema });

export interface PasskeysRoutesOptions {
  webHost: string;
}

/**
 * One's own passkeys under /api/user/passkeys (nobody registers or removes another user's), and
 * signing in with one under /api/auth/passkey.
 */
export function passkeysRoutes(passkeys: PasskeysService, opts: PasskeysRoutesOptions): FastifyPluginAsyncZod {
  const originOf = (request: FastifyRequest) => opts.webHost || `${request.protocol}://${request.host}`;
  const clientOf = (request: FastifyRequest) => ({ ip: request.ip, userAgent: request.headers['user-agent'] ?? '' });

  return async (app) => {
    // Listing and adding are open while the admin's two-factor requirement waits: a passkey meets it.
    app.get(
      '/user/passkeys',
      { config: { enrolment: true }, schema: { tags: ['passkeys'], response: { 200: z.array(passkeySchema) } } },
      async (request) => passkeys.list(requireUser(request)),
    );

    // Adding a passkey takes a proof (`{password}`, `{passcode}` or `{assertion}`): a new way in
    // must not be added by whoever holds an open session.
    app.post(
      '/user/passkeys/options',
      {
        config: { enrolment: true },
        schema: { tags: ['passkeys'], body: passkeyProofSchema, response: { 200: passkeyOptionsSchema } },
      },
      async (request) => {
        const { password, passcode, assertion } = request.body ?? {};
        return passkeys.registrationOptions(
          requireUser(request),
          { password, passcode, assertion, ip: request.ip },
          originOf(request),
        );
      },
    );

    app.post(
      '/user/passkeys',
      {
        config: { enrolment: true },
        schema: { tags: ['passkeys'], body: passkeyCreateSchema, response: { 201: passkeySchema } },
      },
      async (request, reply) => {
        const created = await passkeys.register(
          requireUser(request),
          request.body.name,
          request.body.response,
          originOf(request),
        );
        return reply.status(201).send(created);
      },
    );

    app.put(
      '/user/passkeys/:id',
      { schema: { response: { 204: noContent }, tags: ['passkeys'], params, body: passkeyRenameSchema } },
      async (request, reply) => {
        await passkeys.rename(requireUser(request), request.params.id, request.body.name);
        return reply.status(204).send();
      },
    );

    // The proof (`{password}`, `{passcode}` or `{assertion}`) travels in the body, never in the query string.
    app.delete(
      '/user/passkeys/:id',
      { schema: { response: { 204: noContent }, tags: ['passkeys'], params, body: passkeyProofSchema } },
      async (request, reply) => {
        const { password, passcode, assertion } = request.body ?? {};
        await passkeys.remove(
          requireUser(request),
          request.params.id,
          { password, passcode, assertion, ip: request.ip },
          originOf(request),
        );
        return reply.status(204).send();
      },
    );

    app.post(
      '/user/passkeys/proof/options',
      { schema: { tags: ['passkeys'], response: { 200: passkeyOptionsSchema } } },
      async (request) => passkeys.proofOptions(requireUser(request), originOf(request)),
    );

    // The second sign-in step with a passkey, for a session that waits for it.
    app.post(
      '/auth/passkey/options',
      { config: { secondFactorPending: true }, schema: { tags: ['auth'], response: { 200: passkeyOptionsSchema } } },
      async (request) => passkeys.secondFactorOptions(sessionCookie(request), originOf(request)),
    );

    app.post(
      '/auth/passkey/verify',
      {
        config: { secondFactorPending: true },
        schema: { response: { 204: noContent }, tags: ['auth'], body: passkeyAssertionSchema },
      },
      async (request, reply) => {
        await passkeys.secondFactor(
          sessionCookie(request),
          request.body.response,
          originOf(request),
          clientOf(request),
        );
        return reply.status(204).send();
      },
    );

    // Passwordless sign-in.
    app.post(
      '/auth/passkey/login/options',
      { config: { public: true }, schema: { tags: ['auth'], response: { 200: passkeyOptionsSchema } } },
      async (request, reply) => {
        const { options, browser } = await passkeys.signInOptions(originOf(request));
        reply.setCookie(PASSKEY_SIGN_IN_COOKIE, browser, {
          path: SIGN_IN_PATH,
          httpOnly: true,
          sameSite: 'strict',
          secure: request.protocol === 'https' || opts.webHost.startsWith('https://'),
          maxAge: PASSKEY_CHALLENGE_MS / 1000,
        });
        return options;
      },
    );

    app.post(
      '/auth/passkey/login',
      {
        config: { public: true },
        schema: { response: { 204: noContent }, tags: ['auth'], body: passkeyAssertionSchema },
      },
      async (request, reply) => {
        const session = await passkeys.signIn(
          request.body.response,
          request.cookies[PASSKEY_SIGN_IN_COOKIE],
          originOf(request),
          clientOf(request),
        );
        reply.clearCookie(PASSKEY_SIGN_IN_COOKIE, { path: SIGN_IN_PATH });
        setSessionCookie(request, reply, session, opts.webHost);
        return reply.status(204).send();
      },
    );
  };
}

/** The session cookie's value; the second step belongs to a session, never to a token. */
function sessionCookie(request: FastifyRequest): string {
  const value = request.cookies[SESSION_COOKIE];
  if (!value) throw new UnauthorizedError();
  return value;
}
