import type { FastifyInstance } from 'fastify';

/**
 * JSON bodies as API clients send them: many (Python `requests` sessions, Ansible's `uri`,
 * generated clients) set `Content-Type: application/json` on every call, bodyless DELETEs and
 * `.../stop` included. An empty or whitespace-only body is therefore no body (`undefined`), not
 * invalid JSON; anything else goes to Fastify's own parser, which keeps the server's body limit,
 * the prototype-poisoning protection and the "not valid JSON" error. Fastify validates an absent
 * body as `null`, so the body schema of a route that may be called bodyless uses `.nullish()`.
 */
export function registerJsonBody(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body.toString();
    if (text.trim() === '') {
      done(null, undefined);
      return;
    }
    // Fastify's parser answers through `done`, synchronously; its type merely allows a promise.
    void parseJson(request, text, done);
  });
}
