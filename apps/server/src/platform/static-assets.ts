import fs from 'node:fs';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import { firstRouteLinks } from './first-route-links.js';

/** Vite names every file under assets/ by its content's hash: a new build gives new names. */
const ASSETS_DIR = 'assets';
/** A hashed file never changes under its name: caches keep it a year without asking again. */
export const IMMUTABLE = 'public, max-age=31536000, immutable';
/** index.html names the current hashed files: the browser asks again (cheaply, by ETag) each time. */
export const REVALIDATE = 'no-cache';

/** The built console: the `Link` header for index.html at a page's path (first-route-links.ts). */
export interface ServedConsole {
  linksFor(pathname: string): string | undefined;
}

/**
 * Serves the built console from `webDist` when there is one; answers null when there is none.
 *
 * The console's build (apps/web/vite.config.ts) writes a brotli (`.br`) and a gzip (`.gz`) copy
 * beside each file worth compressing, once; the answer is the copy the request's
 * Accept-Encoding prefers (brotli first), or the file itself, with `Content-Encoding`, the
 * original's Content-Type and `Vary: Accept-Encoding`. The copies are not served under their own
 * names. Files under assets/ are cached for good; everything else (index.html, also as the answer
 * for client-side routes, see isClientRoute) is revalidated on every load. Only files present at
 * start are served (one route each): nothing outside the folder, no dotfiles (`.vite/`).
 */
export async function registerConsole(app: FastifyInstance, webDist: string): Promise<ServedConsole | null> {
  if (!fs.existsSync(path.join(webDist, 'index.html'))) return null;
  const linksFor = firstRouteLinks(webDist);
  const assets = path.join(path.resolve(webDist), ASSETS_DIR) + path.sep;
  await app.register(fastifyStatic, {
    root: webDist,
    prefix: '/',
    wildcard: false,
    // `/` is a page like any other: the not-found handler answers it with index.html and its Link header.
    index: false,
    preCompressed: true,
    globIgnore: ['**/*.br', '**/*.gz'],
    // send's own header would be `public, max-age=0`; setHeaders decides per file.
    cacheControl: false,
    setHeaders: (reply, file) => {
      reply.header('cache-control', path.resolve(file).startsWith(assets) ? IMMUTABLE : REVALIDATE);
    },
  });
  return { linksFor };
}

/**
 * Whether a GET that matched no route is one of the console's own pages, answered with
 * index.html: not the API, and not a missing hashed file (a stale chunk of an older build must
 * fail as a 404, not load a page as a script).
 */
export function isClientRoute(url: string): boolean {
  return url !== '/api' && !url.startsWith('/api/') && url !== `/${ASSETS_DIR}` && !url.startsWith(`/${ASSETS_DIR}/`);
}
