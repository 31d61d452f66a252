import {
  idParamSchema,
  totpConfirmSchema,
  totpCreatedSchema,
  totpEnableSchema,
  totpRemoveSchema,
} from '@gantry/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireUser } from '../../platform/auth.js';
import type { TotpService } from './totp.service.js';
import { noContent, rawBody } from '../../platform/openapi-document.js';

const userParams = z.object({ id: idParamSchema });
const totpParams = z.object({ id: idParamSchema, totpId: idParamSchema });
const actorOf = (u: { id: number; admin: number }) => ({ id: u.id, admin: u.admin === 1 });

/** A user's two-factor method: the user themself or an admin enables and removes it. */
export function totpRoutes(totp: TotpService): FastifyPluginAsyncZod {
  return async (app) => {
    // Enabling one's own method takes `{password}` in the body (an admin enabling another's, none);
    // one's own then waits for its first code (POST .../confirm below).
    app.post(
      '/users/:id/2fas/totp',
      // Also while the admin's requirement blocks everything else: this is how it is met.
      {
        config: { enrolment: 'own' },
        schema: { tags: ['users'], params: userParams, body: totpEnableSchema, response: { 201: totpCreatedSchema } },
      },
      async (request, reply) => {
        const { password } = request.body ?? {};
        const created = await totp.enable(actorOf(requireUser(request)), request.params.id, {
          password,
          ip: request.ip,
        });
        return reply.status(201).send(created);
      },
    );

    // One's own new method goes on with a current code of its secret (`{code}` in the body).
    app.post(
      '/users/:id/2fas/totp/:totpId/confirm',
      {
        config: { enrolment: 'own' },
        schema: { response: { 204: noContent }, tags: ['users'], params: totpParams, body: totpConfirmSchema },
      },
      async (request, reply) => {
        await totp.confirm(
          actorOf(requireUser(request)),
          request.params.id,
          request.params.totpId,
          request.body.code,
          request.ip,
        );
        return reply.status(204).send();
      },
    );

    // Removing one's own method takes `{password}` or `{passcode}` in the body; never in the
    // query string, which request logs and proxies keep.
    app.delete(
      '/users/:id/2fas/totp/:totpId',
      { schema: { response: { 204: noContent }, tags: ['users'], params: totpParams, body: totpRemoveSchema } },
      async (request, reply) => {
        const { password, passcode } = request.body ?? {};
        await totp.disable(actorOf(requireUser(request)), request.params.id, request.params.totpId, {
          password,
          passcode,
          ip: request.ip,
        });
        return reply.status(204).send();
      },
    );

    app.get(
      '/users/:id/2fas/totp/:totpId/qr',
      {
        config: { enrolment: 'own' },
        schema: {
          tags: ['users'],
          params: totpParams,
          response: { 200: rawBody('image/png', 'The QR code of the authenticator secret (not cached)') },
        },
      },
      async (request, reply) => {
        const png = await totp.qrCode(actorOf(requireUser(request)), request.params.id, request.params.totpId);
        // The image carries the secret: keep it out of every cache.
        return reply.type('image/png').header('cache-control', 'no-store').send(png);
      },
    );
  };
}
