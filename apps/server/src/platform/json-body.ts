import type { FastifyInstance, FastifyRequest } from 'fastify';

type Done = (err: Error | null, body?: unknown) => void;

/**
 * JSON bodies as API clients send them.
 *
 * - Many clients (Python `requests` sessions, Ansible's `uri`, generated clients) set
 *   `Content-Type: application/json` on every call, bodyless DELETEs and `.../stop` included. An
 *   empty or whitespace-only body is therefore no body (`undefined`), not invalid JSON.
 * - Others send JSON with no content type or a wrong one: `curl -d` (form-urlencoded), Python's
 *   `urllib` and `requests(data=...)`, a published Ansible collection's login (`text/plain` or
 *   none). The body is read as JSON whatever its type. This is no CSRF weakness: the Origin check
 *   in auth.ts, not the content type, refuses a cross-site form post that carries the cookie.
 *
 * Anything else goes to Fastify's own JSON parser, which keeps the server's body limit, the
 * prototype-poisoning protection and the "not valid JSON" error. Fastify validates an absent body
 * as `null`, so the body schema of a route that may be called bodyless uses `.nullish()`.
 * Routes that take other bodies (webhooks, Terraform state, restores) register their own parsers
 * inside their plugin, which replace these there.
 */
export function registerJsonBody(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  const parse = (request: FastifyRequest, body: string | Buffer, done: Done) => {
    const text = body.toString();
    if (text.trim() === '') {
      done(null, undefined);
      return;
    }
    // Fastify's parser answers through `done`, synchronously; its type merely allows a promise.
    void parseJson(request, text, done);
  };
  app.removeContentTypeParser(['application/json', 'text/plain']);
  app.addContentTypeParser('application/json', { parseAs: 'string' }, parse);
  // Every other type, and none at all (Fastify then looks the parser up as '*').
  app.addContentTypeParser('*', { parseAs: 'string' }, parse);
}
