import type { WebsocketPluginOptions } from '@fastify/websocket';
import { SESSION_COOKIE, WS_SUBSCRIBE_QUERY, wsClientMessageSchema, ErrorCodes } from '@gantry/contracts';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { requireUser } from '../platform/auth.js';
import { ForbiddenError } from '../platform/errors.js';
import type { Credential, RealtimeHub } from './hub.js';
import { hubSocketOf } from './ws-frames.js';

/** Clients send only small subscribe/unsubscribe messages; a frame this big is refused (ws closes with 1009). */
export const WS_MAX_PAYLOAD = 64 * 1024;
/** Messages a client may send per second before it is closed with 1008 (a console sends a few per dialog). */
export const WS_MAX_MESSAGES_PER_SECOND = 20;
const [subscribeKey, subscribeValue] = WS_SUBSCRIBE_QUERY.split('=') as [string, string];
const CLOSE_POLICY = 1008;

/** @fastify/websocket options: the payload limit, and quiet handling of clients breaking the protocol. */
export const websocketOptions: WebsocketPluginOptions = {
  options: { maxPayload: WS_MAX_PAYLOAD },
  errorHandler(error, socket, request) {
    // ws has already sent the close frame (1009 too big, 1002 bad frame): let that handshake finish.
    request.log.info({ err: error }, 'websocket client error');
    if (socket.readyState !== socket.CLOSING && socket.readyState !== socket.CLOSED) socket.terminate();
  },
};

/**
 * GET /api/ws: the signed-in user's live task updates and log lines. A client in subscribe mode
 * (`?logs=subscribe`, or once it sends a subscribe message) gets `logs` messages for the tasks it
 * subscribed to; others get Semaphore's per-line `log` messages for every task they may see.
 */
export function wsRoutes(hub: RealtimeHub, webHost: string): FastifyPluginAsync {
  return async (app) => {
    app.get(
      '/ws',
      {
        websocket: true,
        schema: { hide: true },
        // Before the upgrade, so a cross-site page gets a plain 403 and never a socket.
        preValidation: async (request) => {
          if (!sameOrigin(request, webHost)) throw new ForbiddenError('Cross-site WebSocket refused', { code: ErrorCodes.crossSite });
        },
      },
      (socket, request) => {
        const user = requireUser(request);
        const query = request.query as Record<string, unknown>;
        // The upgraded request's own connection: the one `ws` writes to, for the hub's batched frames.
        const hubSocket = hubSocketOf(socket, request.raw.socket);
        const connection = hub.add(hubSocket, { id: user.id, admin: user.admin === 1 }, credentialOf(request), query[subscribeKey] === subscribeValue);
        socket.on('close', () => connection.remove());
        // A client that floods the socket is cut off; anything but a well-formed subscription is ignored.
        const overLimit = messageLimiter(WS_MAX_MESSAGES_PER_SECOND);
        socket.on('message', (data: Buffer | ArrayBuffer | Buffer[], isBinary: boolean) => {
          if (overLimit()) {
            socket.close(CLOSE_POLICY, 'too many messages');
            return;
          }
          if (isBinary) return;
          const parsed = wsClientMessageSchema.safeParse(parseJson(Array.isArray(data) ? Buffer.concat(data).toString('utf8') : Buffer.from(data as ArrayBuffer).toString('utf8')));
          if (!parsed.success) return;
          // Access is checked per line sent (the task's project), so subscribing to a foreign task yields nothing.
          if (parsed.data.type === 'subscribe') connection.subscribe(parsed.data.task_id);
          else connection.unsubscribe(parsed.data.task_id);
        });
      },
    );
  };
}

/**
 * Browsers always send Origin on a WebSocket upgrade, and they are the only clients that attach
 * a cookie for another site; a request without Origin (scripts, the CLI) is therefore not forged.
 * Allowed: GANTRY_WEB_HOST's origin, or the host this request was sent to. The scheme must match
 * too, except that an https page may reach us over http: TLS ended at a proxy in front of us.
 */
function sameOrigin(request: FastifyRequest, webHost: string): boolean {
  const origin = request.headers.origin;
  if (origin === undefined) return true;
  try {
    if (webHost && origin === new URL(webHost).origin) return true;
    const page = new URL(origin);
    const own = new URL(`${request.protocol}://${request.headers.host ?? ''}`);
    return page.host === own.host && (page.protocol === own.protocol || page.protocol === 'https:');
  } catch {
    return false;
  }
}

/** What the auth hook accepted for this request, so the hub can ask again later. */
function credentialOf(request: FastifyRequest): Credential {
  if (request.authKind === 'token') {
    const bearer = request.headers.authorization?.match(/^bearer\s+(\S+)\s*$/i)?.[1] ?? '';
    return { kind: 'token', value: bearer };
  }
  return { kind: 'session', value: request.cookies[SESSION_COOKIE] ?? '' };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/** True once more than `max` calls fall within one second (fixed one-second windows). */
function messageLimiter(max: number): () => boolean {
  let windowStart = 0;
  let count = 0;
  return () => {
    const now = Date.now();
    if (now - windowStart >= 1000) {
      windowStart = now;
      count = 0;
    }
    count += 1;
    return count > max;
  };
}
