import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import type { LightMyRequestResponse } from 'fastify';
import { describe, expect, it } from 'vitest';
import { engines, useTestApp } from '../test/harness.js';

const INDEX = '<!doctype html><title>Gantry</title><script type="module" src="/assets/x-abc123.js"></script>';
const SCRIPT = `export const x = ${JSON.stringify('console '.repeat(200))};\n`;
const SECRET = 'not-for-the-browser';

/**
 * A built console as Vite leaves it: index.html, a hashed script with its brotli and gzip copies,
 * a hashed stylesheet without copies, Vite's manifest; and a file beside the folder, not in it.
 */
function consoleDist() {
  const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'gantry-static-'));
  const dist = path.join(parent, 'dist');
  fs.mkdirSync(path.join(dist, 'assets'), { recursive: true });
  fs.mkdirSync(path.join(dist, '.vite'));
  fs.writeFileSync(path.join(dist, 'index.html'), INDEX);
  const script = Buffer.from(SCRIPT);
  const br = zlib.brotliCompressSync(script);
  const gz = zlib.gzipSync(script);
  fs.writeFileSync(path.join(dist, 'assets/x-abc123.js'), script);
  fs.writeFileSync(path.join(dist, 'assets/x-abc123.js.br'), br);
  fs.writeFileSync(path.join(dist, 'assets/x-abc123.js.gz'), gz);
  fs.writeFileSync(path.join(dist, 'assets/y-def456.css'), 'body{margin:0}');
  fs.writeFileSync(path.join(dist, '.vite/manifest.json'), '{"manifest": true}');
  fs.writeFileSync(path.join(dist, 'assets/shell-aaa111.js'), 'export {};');
  fs.writeFileSync(path.join(dist, 'assets/dash-bbb222.js'), 'export {};');
  // What the build lists per first route (apps/web/vite.config.ts): a file it did not write, and
  // one no Link header may name, are left out.
  fs.writeFileSync(
    path.join(dist, 'first-routes.json'),
    JSON.stringify([
      { path: '^/auth/', files: [], data: [] },
      {
        path: '^/$|^/project/\\d+(/history)?/?$',
        files: ['/assets/shell-aaa111.js', '/assets/dash-bbb222.js', '/assets/gone-ccc333.js', '/assets/x-abc123.js>; rel=preload'],
        data: ['/api/user', '/api/project/{project}/tasks/last?limit=100', '/elsewhere', '/api/x>; rel=prefetch'],
      },
      { path: '^/', files: ['/assets/shell-aaa111.js'] },
    ]),
  );
  fs.writeFileSync(path.join(parent, 'secret.txt'), SECRET);
  return { dist, script, br, gz };
}

/** The browser-hardening headers every answer carries (see security-headers.ts). */
function expectHardened(res: LightMyRequestResponse, what: string): void {
  expect(String(res.headers['content-security-policy']), what).toContain("script-src 'self'");
  expect(res.headers['x-content-type-options'], what).toBe('nosniff');
}

describe.each(engines)('the console’s files ($name)', (engine) => {
  const files = consoleDist();
  const t = useTestApp(engine, { GANTRY_WEB_DIST: files.dist });
  const get = (url: string, acceptEncoding?: string) =>
    t().app.inject({
      method: 'GET',
      url,
      headers: acceptEncoding === undefined ? {} : { 'accept-encoding': acceptEncoding },
    });

  it('sends a hashed file compressed as the browser accepts, cached for good', async () => {
    const cases: Array<[string | undefined, string | undefined, Buffer]> = [
      ['gzip, deflate, br, zstd', 'br', files.br],
      ['br', 'br', files.br],
      ['gzip', 'gzip', files.gz],
      ['br;q=0, gzip', 'gzip', files.gz],
      ['deflate', undefined, files.script],
      [undefined, undefined, files.script],
    ];
    for (const [accept, encoding, body] of cases) {
      const res = await get('/assets/x-abc123.js', accept);
      const what = `Accept-Encoding: ${accept ?? '(none)'}`;
      expect(res.statusCode, what).toBe(200);
      expect(res.headers['content-encoding'], what).toBe(encoding);
      expect(res.rawPayload.equals(body), what).toBe(true);
      expect(res.headers['content-length'], what).toBe(String(body.length));
      expect(res.headers['content-type'], what).toMatch(/^(application|text)\/javascript; charset=utf-8$/);
      expect(res.headers.vary, what).toMatch(/accept-encoding/i);
      expect(res.headers['cache-control'], what).toBe('public, max-age=31536000, immutable');
      expectHardened(res, what);
    }
    // A file without compressed copies is sent as it is, still cached for good.
    const css = await get('/assets/y-def456.css', 'br, gzip');
    expect(css.statusCode).toBe(200);
    expect(css.headers['content-encoding']).toBeUndefined();
    expect(css.headers['content-type']).toBe('text/css; charset=utf-8');
    expect(css.body).toBe('body{margin:0}');
    expect(css.headers['cache-control']).toBe('public, max-age=31536000, immutable');
  });

  it('sends index.html, also for client-side routes, to be revalidated on every load', async () => {
    for (const url of ['/', '/index.html', '/auth/login', '/project/1/history?t=5']) {
      const res = await get(url, 'gzip, br');
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['content-type'], url).toBe('text/html; charset=utf-8');
      expect(res.body, url).toBe(INDEX);
      expect(res.headers['cache-control'], url).toBe('no-cache');
      expectHardened(res, url);
    }
  });

  it('names the files and API calls a page’s first render needs in a Link header, so the browser asks for them at once', async () => {
    const both = '</assets/shell-aaa111.js>; rel=modulepreload, </assets/dash-bbb222.js>; rel=modulepreload';
    const user = '</api/user>; rel=preload; as=fetch; crossorigin';
    const history = (p: number) => `</api/project/${p}/tasks/last?limit=100>; rel=preload; as=fetch; crossorigin`;
    const cases: Array<[string, string | undefined]> = [
      // No project in the address: no call that needs one.
      ['/', `${both}, ${user}`],
      ['/project/7/history?t=5', `${both}, ${user}, ${history(7)}`],
      ['/project/7', `${both}, ${user}, ${history(7)}`],
      ['/project/7/keys', '</assets/shell-aaa111.js>; rel=modulepreload'],
      ['/auth/login', undefined],
    ];
    for (const [url, link] of cases) {
      const res = await get(url, 'br');
      expect(res.statusCode, url).toBe(200);
      expect(res.body, url).toBe(INDEX);
      expect(res.headers.link, url).toBe(link);
    }
    // Files and the API never carry it.
    expect((await get('/assets/x-abc123.js')).headers.link).toBeUndefined();
    expect((await get('/api/ping')).headers.link).toBeUndefined();
  });

  it('answers a missing file with a JSON 404, never the page or a cache header', async () => {
    for (const url of ['/assets/x-zzz999.js', '/assets/x-abc123.js.br', '/assets/x-abc123.js.gz', '/assets']) {
      const res = await get(url, 'br');
      expect(res.statusCode, url).toBe(404);
      expect(res.json(), url).toMatchObject({ error: `Route GET ${url} not found` });
      expect(res.headers['cache-control'], url).toBeUndefined();
      expectHardened(res, url);
    }
  });

  it('serves nothing outside the folder, nor its dotfiles', async () => {
    for (const url of [
      '/../secret.txt',
      '/assets/../../secret.txt',
      '/assets/%2e%2e/%2e%2e/secret.txt',
      '/%2e%2e/secret.txt',
      '/..%2fsecret.txt',
      '/assets/..%2f..%2fsecret.txt',
    ]) {
      const res = await get(url);
      expect(res.body, url).not.toContain(SECRET);
      expect([200, 403, 404], url).toContain(res.statusCode);
      if (res.statusCode === 200) expect(res.body, url).toBe(INDEX);
    }
    const manifest = await get('/.vite/manifest.json');
    expect(manifest.body).not.toContain('"manifest"');
  });
});
