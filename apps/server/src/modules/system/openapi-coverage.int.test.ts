import { describe, expect, it } from 'vitest';
import { engines, useTestApp } from '../../test/harness.js';

/** Fastify's `:name` parameters as OpenAPI writes them (`{name}`). */
const openApiPath = (url: string) => url.replace(/:([A-Za-z0-9_]+)/g, '{$1}').replace(/\/$/, '') || '/';

describe('OpenAPI document', () => {
  const t = useTestApp(engines[0]!);

  it('describes every registered API route', async () => {
    const doc = (await t().app.inject('/api/openapi.json')).json() as {
      paths: Record<string, Record<string, unknown>>;
    };
    const missing = t()
      .app.routeTable.filter((r) => r.url.startsWith('/api') && !r.hidden && r.method !== 'HEAD')
      .filter((r) => !doc.paths[openApiPath(r.url)]?.[r.method.toLowerCase()])
      .map((r) => `${r.method} ${r.url}`);
    expect(missing).toEqual([]);
  });

  it('is OpenAPI 3.1 with its security schemes, public routes without credentials', async () => {
    const doc = (await t().app.inject('/api/openapi.json')).json();
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.components.securitySchemes).sort()).toEqual(['bearer', 'session']);
    expect(doc.components.schemas.Error.properties.code.enum).toContain('field_required');
    expect(doc.paths['/api/auth/login'].post.security).toEqual([]);
    expect(doc.paths['/api/projects'].get.security).toBeUndefined();
    expect(doc.paths['/api/projects'].post.responses.default).toBeDefined();
  });

  it('renders the document at /api/docs from files of its own, under the console CSP, without signing in', async () => {
    const page = await t().app.inject('/api/docs');
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/text\/html/);
    expect(page.headers['content-security-policy']).toMatch(/script-src 'self'/);
    // Every script is a file of the package: nothing inline for the CSP to refuse.
    const scripts = [...page.body.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(scripts.length).toBeGreaterThan(0);
    for (const [, attrs, body] of scripts) {
      expect(attrs).toMatch(/src="/);
      expect(body!.trim()).toBe('');
    }
    expect((await t().app.inject('/api/docs/static/swagger-ui-bundle.js')).statusCode).toBe(200);
    const json = await t().app.inject('/api/docs/json');
    expect(json.statusCode).toBe(200);
    expect(json.json().openapi).toBe('3.1.0');
  });
});
