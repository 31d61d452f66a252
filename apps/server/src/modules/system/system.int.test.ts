import { describe, expect, it } from 'vitest';
import { engines, signedInUser, useTestApp } from '../../test/harness.js';

describe.each(engines)('system ($name)', (engine) => {
  const t = useTestApp(engine, { GANTRY_WEB_HOST: 'https://gantry.example/' });

  it('answers /api/info for a signed-in user', async () => {
    const u = await signedInUser(t());
    expect((await u.get('/api/info')).json()).toEqual({
      version: expect.stringMatching(/^\d+\.\d+\.\d+/),
      web_host: 'https://gantry.example',
      use_remote_runner: false,
      premium_features: { project_runners: true },
      auth_methods: { totp: { enabled: false, allow_recovery: false } },
    });
  });

  it('publishes an OpenAPI document generated from the route schemas', async () => {
    const res = await t().app.inject('/api/openapi.json');
    const doc = res.json();
    expect(doc.openapi).toMatch(/^3\./);
    for (const p of ['/api/auth/login', '/api/users', '/api/users/{id}', '/api/user/tokens', '/api/projects', '/api/project/{projectId}/role']) {
      expect(Object.keys(doc.paths)).toContain(p);
    }
    expect(doc.paths['/api/auth/login'].post.requestBody.content['application/json'].schema.required).toEqual(['auth', 'password']);
  });

  it('tolerates a trailing slash and answers unknown API routes with a JSON 404', async () => {
    const u = await signedInUser(t());
    expect((await u.get('/api/user/')).statusCode).toBe(200);
    const missing = await u.get('/api/nothing-here');
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toEqual({ error: 'Route GET /api/nothing-here not found', code: 'route_not_found' });
  });

  it('never answers bad input with a 500 or a stack trace', async () => {
    const u = await signedInUser(t(), { admin: true });
    const bodies: Array<[string, string, string | undefined]> = [
      ['POST', '/api/projects', '{not json'],
      ['POST', '/api/projects', '[]'],
      ['POST', '/api/projects', '"text"'],
      ['POST', '/api/users', '{"name": 5}'],
      ['PUT', '/api/project/1', 'null'],
      ['POST', '/api/auth/login', '{"auth": {"$ne": 1}, "password": []}'],
      ['PUT', '/api/users/99999999999999999999', '{}'],
      ['GET', '/api/project/-1', undefined],
    ];
    for (const [method, url, payload] of bodies) {
      const res = await t().app.inject({
        method: method as 'POST',
        url,
        payload,
        cookies: { gantry_session: u.cookie },
        headers: { 'content-type': 'application/json', 'x-gantry-request': '1' },
      });
      expect([url, res.statusCode < 500]).toEqual([url, true]);
      expect(res.json()).toHaveProperty('error');
      expect(res.body).not.toMatch(/at .*\.(ts|js):\d+/);
    }
    const huge = await t().app.inject({
      method: 'POST',
      url: '/api/projects',
      payload: JSON.stringify({ name: 'x'.repeat(2 * 1024 * 1024) }),
      cookies: { gantry_session: u.cookie },
      headers: { 'content-type': 'application/json', 'x-gantry-request': '1' },
    });
    expect(huge.statusCode).toBe(413);
    expect(huge.json()).toEqual({ error: 'Request body is too large', code: 'body_too_large' });
  });
});
