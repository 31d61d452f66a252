import fs from 'node:fs';
import path from 'node:path';

/** dist/first-routes.json as the console's build writes it (apps/web/vite.config.ts, firstRoutes). */
interface FirstRouteFiles {
  path: string;
  files: string[];
  data?: string[];
}

/** A hashed file's address: what a Link header may name (no comma, semicolon or angle bracket). */
const ASSET_URL = /^\/assets\/[\w.-]+\.js$/;
/** An API call the page makes at once; `{project}` stands for the page's project id. */
const DATA_URL = /^\/api\/[\w/{}.-]+(\?[\w=&.-]+)?$/;

/**
 * The `Link` header that goes with index.html for a page: `rel=modulepreload` for each file the
 * page's first render loads beyond the entry (apps/web/src/app/first-routes.ts), and
 * `rel=preload; as=fetch` for the API calls the entry makes at once, so the browser starts them
 * while it reads the page instead of after the entry ran (the entry's own `fetch` then takes the
 * preloaded answer: same address, same-origin credentials, no extra header). Answers
 * undefined for a page with nothing to add, or when the build wrote no such list (an older build:
 * the console loads as before). Read once at start; a file the build did not write is left out.
 */
export function firstRouteLinks(webDist: string): (pathname: string) => string | undefined {
  let routes: Array<{ test: RegExp; modules: string[]; data: string[] }> = [];
  try {
    const list = JSON.parse(fs.readFileSync(path.join(webDist, 'first-routes.json'), 'utf8')) as FirstRouteFiles[];
    routes = list.map((r) => ({
      test: new RegExp(r.path),
      modules: r.files
        .filter((f) => ASSET_URL.test(f) && fs.existsSync(path.join(webDist, f)))
        .map((f) => `<${f}>; rel=modulepreload`),
      data: (r.data ?? []).filter((u) => DATA_URL.test(u)),
    }));
  } catch {
    routes = [];
  }
  return (pathname) => {
    const route = routes.find((r) => r.test.test(pathname));
    if (!route) return undefined;
    const project = /^\/project\/(\d{1,15})(\/|$)/.exec(pathname)?.[1];
    const data = route.data
      .filter((u) => project !== undefined || !u.includes('{project}'))
      .map((u) => `<${u.replaceAll('{project}', project ?? '')}>; rel=preload; as=fetch; crossorigin`);
    const links = [...route.modules, ...data];
    return links.length ? links.join(', ') : undefined;
  };
}
