import swagger from '@fastify/swagger';
import Fastify, { type FastifyReply } from 'fastify';
import { describe, expect, it } from 'vitest';
import { recordAnswers } from '../../test/openapi-answers.js';

/** The harness's check itself: what it lets through and what it reports. */
describe('OpenAPI answer check', () => {
  it('reports an undeclared success, lets refusals through `default`, skips hidden and unmatched routes', async () => {
    const app = Fastify();
    await app.register(swagger, { openapi: { openapi: '3.1.0', info: { title: 't', version: '1' } } });
    const answers = recordAnswers(app);
    const ok = { 200: { type: 'object' }, default: { type: 'object' } };
    app.get('/api/a', { schema: { response: ok } }, async (_req, reply) => reply.status(201).send({}));
    app.get('/api/b', { schema: { response: ok } }, async (_req, reply) => reply.status(409).send({}));
    // Typed loosely: the route answers a status its schema does not declare, which is the point.
    app.get('/api/c', { schema: { response: { 200: { type: 'object' } } } }, async (_req, reply: FastifyReply) =>
      reply.status(409).send({}),
    );
    app.get('/api/d', { schema: { hide: true } }, async (_req, reply) => reply.status(202).send({}));
    app.get('/api/e', { schema: { response: ok } }, async () => ({}));
    await app.ready();
    for (const url of ['/api/a', '/api/b', '/api/c', '/api/d', '/api/e', '/api/none']) await app.inject(url);
    expect(answers.undocumented(app).sort()).toEqual(['GET /api/a 201', 'GET /api/c 409']);
    await app.close();
  });
});
