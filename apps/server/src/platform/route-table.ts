import type { FastifyInstance } from 'fastify';

/** A route as registered: what the OpenAPI document must describe unless it is hidden. */
export interface RegisteredRoute {
  method: string;
  url: string;
  /** `schema.hide`: kept out of the document on purpose (the document itself, metrics, sockets). */
  hidden: boolean;
}

/**
 * Records every route registered after this call (Fastify tells no list afterwards), so a test can
 * check that the OpenAPI document misses none.
 */
export function recordRoutes(app: FastifyInstance): RegisteredRoute[] {
  const routes: RegisteredRoute[] = [];
  app.addHook('onRoute', (r) => {
    const methods = Array.isArray(r.method) ? r.method : [r.method];
    const hidden = !!(r.schema as { hide?: boolean } | undefined)?.hide;
    for (const method of methods) routes.push({ method: String(method), url: r.url, hidden });
  });
  return routes;
}
