/**
 * What a first load of an address needs beyond the entry: the screens' modules (source paths, as
 * the build's manifest names them) and, signed in, the data the page asks for first.
 *
 * main.tsx starts these imports while the entry runs; the build (vite.config.ts, firstRoutes)
 * writes each route's files to dist/first-routes.json, and the server sends them as `Link:
 * rel=modulepreload` headers with index.html (apps/server/src/platform/first-route-links.ts), so
 * the browser asks for them while it still reads the page, not a round trip after the entry ran.
 * Plain data: the build reads this file.
 */
export interface FirstRoute {
  /** Which addresses (a regular expression's source, matched against the path). */
  path: string;
  /** The modules a first render of such an address imports (source paths, from apps/web). */
  modules: string[];
  /**
   * The API calls the entry makes at once for such an address (prefetchSession in
   * lib/query-client.ts; a test holds the two together), sent as `rel=preload; as=fetch` so they
   * start with the page. `{project}` is the address's project id; a call naming it is left out
   * where the address has none.
   */
  data: string[];
}

const SHELL = 'src/app/shell/app-shell.tsx';
const DASHBOARD = 'src/app/screens/project-dashboard.ts';
const SESSION = ['/api/user', '/api/info', '/api/projects', '/api/project/{project}/role'];

export const FIRST_ROUTES: FirstRoute[] = [
  { path: '^/auth/', modules: ['src/app/screens/sign-in.tsx'], data: [] },
  // The dashboard opens on its history.
  {
    path: '^/project/\\d+(/history)?/?$',
    modules: [SHELL, DASHBOARD],
    data: [...SESSION, '/api/project/{project}/tasks/last?limit=100'],
  },
  // `/` goes on to a project's history.
  { path: '^/$|^/project/\\d+/(settings|activity|stats|runners)/?$', modules: [SHELL, DASHBOARD], data: SESSION },
  { path: '^/project/\\d+/(views/\\d+/)?templates(/|$)', modules: [SHELL, 'src/app/screens/templates.ts'], data: SESSION },
  // Any other signed-in page: at least the shell.
  { path: '^/', modules: [SHELL], data: SESSION },
];

/** The first route whose path matches (the last one matches every path). */
export function firstRouteOf(pathname: string): FirstRoute | undefined {
  return FIRST_ROUTES.find((r) => new RegExp(r.path).test(pathname));
}
