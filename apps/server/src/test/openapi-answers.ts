import type { FastifyInstance } from 'fastify';

/** Fastify's `:name` parameters as OpenAPI writes them (`{name}`). */
export const openApiPath = (url: string) => url.replace(/:([A-Za-z0-9_]+)/g, '{$1}').replace(/\/$/, '') || '/';

export interface AnswerRecorder {
  /** `METHOD /url status` for each answer whose status the document does not list for its operation. */
  undocumented(app: FastifyInstance): string[];
}

type Doc = { paths?: Record<string, Record<string, { responses?: Record<string, unknown> }>> };

/**
 * Records (method, route pattern, status) of every /api answer, so the harness can hold the
 * integration tests' real answers against the OpenAPI document. Only a set of strings per request:
 * the document is read once, at the end. A documented `default` covers refusals (4xx/5xx); a
 * success or redirect must be declared itself. Hidden routes and unmatched URLs are skipped.
 */
export function recordAnswers(app: FastifyInstance): AnswerRecorder {
  const seen = new Set<string>();
  app.addHook('onResponse', async (request, reply) => {
    const url = request.routeOptions.url;
    if (!url || !url.startsWith('/api') || (request.routeOptions.schema as { hide?: boolean } | undefined)?.hide)
      return;
    seen.add(`${request.method} ${url} ${reply.statusCode}`);
  });
  return {
    undocumented(app) {
      if (seen.size === 0) return [];
      const doc = (app.swagger as unknown as (this: FastifyInstance) => Doc).call(app);
      return [...seen].filter((answer) => {
        const [method, url, status] = answer.split(' ') as [string, string, string];
        // HEAD is answered by the GET route.
        const op = doc.paths?.[openApiPath(url)]?.[(method === 'HEAD' ? 'GET' : method).toLowerCase()];
        if (!op) return false; // not in the document at all: openapi-coverage's concern
        const responses = op.responses ?? {};
        if (status in responses || `${status[0]}XX` in responses) return false;
        return !(Number(status) >= 400 && 'default' in responses);
      });
    },
  };
}
