import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import type { FastifyReply } from 'fastify';
import { REVALIDATE } from './static-assets.js';

/** The map the console's build writes (apps/web/build/route-preloads.ts): not served itself. */
const MAP_FILE = path.join('.vite', 'route-preloads.json');
/** A hashed file name under assets/, as the build writes them: nothing else goes into a link. */
const ASSET_FILE = /^assets\/[A-Za-z0-9._-]+\.js$/;

interface Page {
  pattern: RegExp;
  html: Buffer;
  br: Buffer;
  gz: Buffer;
}

/**
 * index.html as the answer for a console path, with `modulepreload` links to the code of that
 * path's page when the build named it: the browser fetches the page's files beside the entry
 * instead of after the entry has run. Built once at start (and compressed once); paths the map
 * does not name get index.html as it is.
 */
export class ConsolePages {
  private constructor(private readonly pages: Page[]) {}

  static load(webDist: string): ConsolePages {
    const mapFile = path.join(webDist, MAP_FILE);
    if (!fs.existsSync(mapFile)) return new ConsolePages([]);
    const index = fs.readFileSync(path.join(webDist, 'index.html'), 'utf8');
    const routes = JSON.parse(fs.readFileSync(mapFile, 'utf8')) as { pattern: string; files: string[] }[];
    const pages = routes.map((r) => {
      const links = r.files
        .filter((f) => ASSET_FILE.test(f))
        .map((f) => `<link rel="modulepreload" crossorigin href="/${f}">`);
      // One line each, indented as the head's other lines, just before `</head>`.
      const html = Buffer.from(
        index.replace(
          /^([ \t]*)<\/head>/m,
          (end, indent: string) => links.map((l) => `${indent}  ${l}\n`).join('') + end,
        ),
      );
      return {
        pattern: new RegExp(r.pattern),
        html,
        br: zlib.brotliCompressSync(html),
        gz: zlib.gzipSync(html, { level: 9 }),
      };
    });
    return new ConsolePages(pages);
  }

  /** Answers `urlPath` with its page's index.html; false when no page matches (the caller sends index.html). */
  send(urlPath: string, acceptEncoding: string | undefined, reply: FastifyReply): boolean {
    const page = this.pages.find((p) => p.pattern.test(urlPath));
    if (!page) return false;
    const accepts = (enc: string) =>
      (acceptEncoding ?? '').split(',').some((e) => {
        const [name, ...params] = e.split(';').map((x) => x.trim());
        // `br;q=0` refuses brotli.
        return name === enc && !params.some((p) => /^q=0(\.0*)?$/.test(p));
      });
    const [body, encoding] = accepts('br') ? [page.br, 'br'] : accepts('gzip') ? [page.gz, 'gzip'] : [page.html, null];
    reply.type('text/html; charset=utf-8').header('cache-control', REVALIDATE).header('vary', 'Accept-Encoding');
    if (encoding) reply.header('content-encoding', encoding);
    void reply.send(body);
    return true;
  }
}
