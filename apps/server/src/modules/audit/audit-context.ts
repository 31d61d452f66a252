import { AsyncLocalStorage } from 'node:async_hooks';
import type { AuditAuthKind } from '@gantry/contracts';
import type { FastifyInstance, FastifyRequest } from 'fastify';

/** Who acts and from where, as an audit entry records it. */
export interface AuditCaller {
  actorId: number | null;
  actorLogin: string | null;
  authKind: AuditAuthKind;
  ip: string | null;
  userAgent: string | null;
  requestId: string | null;
}

type Store = { request: FastifyRequest } | { caller: AuditCaller };

const storage = new AsyncLocalStorage<Store>();

/**
 * Puts each request in an audit context once, so services record entries without being handed
 * the caller: the user, auth kind, address, user agent and request id are read from the request
 * when an entry is written (after the auth hook resolved the user).
 */
export function registerAuditContext(app: FastifyInstance): void {
  app.addHook('onRequest', (request, _reply, done) => {
    storage.run({ request }, done);
  });
}

/** Runs `fn` as the given caller (the CLI, Gantry's own jobs): entries it causes carry that caller. */
export function runAsCaller<T>(caller: Partial<AuditCaller> & { authKind: AuditAuthKind }, fn: () => T): T {
  return storage.run(
    { caller: { actorId: null, actorLogin: null, ip: null, userAgent: null, requestId: null, ...caller } },
    fn,
  );
}

/** The caller of the current request or job; Gantry itself outside of both. */
export function currentCaller(): AuditCaller {
  const store = storage.getStore();
  if (!store)
    return { actorId: null, actorLogin: null, authKind: 'system', ip: null, userAgent: null, requestId: null };
  if ('caller' in store) return store.caller;
  const { request } = store;
  const config = request.routeOptions.config;
  const authKind: AuditAuthKind = config.webhook
    ? 'webhook'
    : config.runner
      ? 'runner'
      : request.authKind === 'token'
        ? 'token'
        : 'session';
  const agent = request.headers['user-agent'];
  return {
    actorId: request.user?.id ?? null,
    actorLogin: request.user?.username ?? null,
    authKind,
    ip: request.ip ?? null,
    userAgent: typeof agent === 'string' ? agent.slice(0, 512) : null,
    requestId: String(request.id),
  };
}
