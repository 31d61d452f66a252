import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { engines, useTestApp } from '../test/harness.js';

const INDEX =
  '<!doctype html>\n<html><head><title>Gantry</title><script type="module" src="/assets/index-a1.js"></script>\n</head><body></body></html>';

/** A built console whose build named the code of two kinds of pages, and one bad entry. */
function consoleDist(): string {
  const dist = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'gantry-preloads-')), 'dist');
  fs.mkdirSync(path.join(dist, 'assets'), { recursive: true });
  fs.mkdirSync(path.join(dist, '.vite'));
  fs.writeFileSync(path.join(dist, 'index.html'), INDEX);
  fs.writeFileSync(path.join(dist, 'assets/index-a1.js'), 'export {};\n');
  const map = [
    {
      pattern: '^/project/\\d+(/history)?/?$',
      files: ['assets/shell-b2.js', 'assets/dashboard-c3.js', '../secret.js', 'assets/x.js"><script>alert(1)</script>'],
    },
    { pattern: '^/(?!auth/)', files: ['assets/shell-b2.js'] },
  ];
  fs.writeFileSync(path.join(dist, '.vite/route-preloads.json'), JSON.stringify(map));
  return dist;
}

const links = (html: string) =>
  [...html.matchAll(/<link rel="modulepreload" crossorigin href="([^"]+)">/g)].map((m) => m[1]);

describe.each(engines)('index.html with the page’s code named ($name)', (engine) => {
  const t = useTestApp(engine, { GANTRY_WEB_DIST: consoleDist() });
  const get = (url: string, acceptEncoding?: string) =>
    t().app.inject({ method: 'GET', url, headers: acceptEncoding ? { 'accept-encoding': acceptEncoding } : {} });

  it('names a dashboard’s code on its path, the shell on other signed-in paths, nothing on sign-in', async () => {
    const cases: Array<[string, string[]]> = [
      ['/project/12/history', ['/assets/shell-b2.js', '/assets/dashboard-c3.js']],
      ['/project/12', ['/assets/shell-b2.js', '/assets/dashboard-c3.js']],
      ['/project/12/templates?x=1', ['/assets/shell-b2.js']],
      ['/auth/login', []],
    ];
    for (const [url, expected] of cases) {
      const res = await get(url);
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['content-type'], url).toBe('text/html; charset=utf-8');
      expect(res.headers['cache-control'], url).toBe('no-cache');
      expect(links(res.body), url).toEqual(expected);
      // The rest of index.html is as the build wrote it.
      expect(res.body.replace(/ *<link rel="modulepreload"[^>]*>\n/g, ''), url).toBe(INDEX);
    }
  });

  it('links only hashed scripts under assets/, whatever the map says', async () => {
    const body = (await get('/project/3/history')).body;
    expect(body).not.toContain('secret');
    expect(body).not.toContain('alert(1)');
  });

  it('compresses as the browser accepts', async () => {
    const br = await get('/project/5/history', 'gzip, br');
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers.vary).toMatch(/accept-encoding/i);
    expect(links(zlib.brotliDecompressSync(br.rawPayload).toString())).toEqual([
      '/assets/shell-b2.js',
      '/assets/dashboard-c3.js',
    ]);
    const gz = await get('/project/5/history', 'br;q=0, gzip');
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(links(zlib.gunzipSync(gz.rawPayload).toString())).toHaveLength(2);
    const plain = await get('/project/5/history', 'identity');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(links(plain.body)).toHaveLength(2);
  });
});
