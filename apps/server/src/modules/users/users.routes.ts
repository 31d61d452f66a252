import {
  idParamSchema,
  passwordChangeSchema,
  userCreateSchema,
  userSchema,
  userSummarySchema,
  userUpdateSchema,
} from '@gantry/contracts';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { callerSession, requireAdmin, requireUser, setSessionCookie } from '../../platform/auth.js';
import { keepStoredFields } from '../../platform/partial-update.js';
import { presentUser, presentUserSummary } from './users.presenter.js';
import type { UsersService } from './users.service.js';
import { noContent } from '../../platform/openapi-document.js';

const params = z.object({ id: idParamSchema });
const actorOf = (u: { id: number; admin: number }) => ({ id: u.id, admin: u.admin === 1 });

/**
 * Global users: admins manage everyone; project owners and managers may read team candidates;
 * everyone edits themselves. A change that signs a user out and rotates the caller's own session
 * sets the new cookie in its answer.
 */
export function usersRoutes(users: UsersService, opts: { webHost: string }): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/users',
      { schema: { tags: ['users'], response: { 200: z.array(z.union([userSchema, userSummarySchema])) } } },
      async (request) => {
        const actor = actorOf(requireUser(request));
        const rows = await users.listCandidates(actor);
        return actor.admin ? rows.map(presentUser) : rows.map(presentUserSummary);
      },
    );

    app.post(
      '/users',
      { schema: { tags: ['users'], body: userCreateSchema, response: { 201: userSchema } } },
      async (request, reply) => {
        requireAdmin(request);
        const row = await users.create(request.body);
        return reply.status(201).send(presentUser(row));
      },
    );

    app.get('/users/:id', { schema: { tags: ['users'], params, response: { 200: userSchema } } }, async (request) =>
      presentUser(await users.get(actorOf(requireUser(request)), request.params.id)),
    );

    const storedUser = async (request: FastifyRequest) => {
      const id = params.safeParse(request.params);
      // A user the caller may not read is left to the update's own refusal (403/404, as before).
      return id.success ? users.get(actorOf(requireUser(request)), id.data.id).then(presentUser, () => null) : null;
    };
    // A field left out keeps its stored value (Semaphore's console sends the whole user, scripts may not).
    app.put(
      '/users/:id',
      {
        preValidation: keepStoredFields(userUpdateSchema, storedUser),
        schema: { response: { 204: noContent }, tags: ['users'], params, body: userUpdateSchema },
      },
      async (request, reply) => {
        const rotated = await users.update(
          actorOf(requireUser(request)),
          request.params.id,
          request.body,
          callerSession(request),
        );
        if (rotated) setSessionCookie(request, reply, rotated, opts.webHost);
        return reply.status(204).send();
      },
    );

    app.delete(
      '/users/:id',
      { schema: { response: { 204: noContent }, tags: ['users'], params } },
      async (request, reply) => {
        await users.delete(actorOf(requireUser(request)), request.params.id);
        return reply.status(204).send();
      },
    );

    app.post(
      '/users/:id/password',
      { schema: { response: { 204: noContent }, tags: ['users'], params, body: passwordChangeSchema } },
      async (request, reply) => {
        const rotated = await users.changePassword(
          actorOf(requireUser(request)),
          request.params.id,
          request.body,
          callerSession(request),
        );
        if (rotated) setSessionCookie(request, reply, rotated, opts.webHost);
        return reply.status(204).send();
      },
    );
  };
}
