import type {} from '@fastify/websocket';
import type { FastifyPluginAsync } from 'fastify';
import { requireUser } from '../platform/auth.js';
import type { RealtimeHub } from './hub.js';

/** GET /api/ws: the signed-in user's live task updates and log lines. */
export function wsRoutes(hub: RealtimeHub): FastifyPluginAsync {
  return async (app) => {
    app.get('/ws', { websocket: true, schema: { hide: true } }, (socket, request) => {
      const user = requireUser(request);
      const remove = hub.add(socket, { id: user.id, admin: user.admin === 1 });
      socket.on('close', remove);
      // The socket only talks one way; anything received is ignored.
      socket.on('message', () => undefined);
    });
  };
}
