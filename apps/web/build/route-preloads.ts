import type { Plugin, Rolldown } from 'vite';

type OutputChunk = Rolldown.OutputChunk;

/** A console path (a regular expression on the URL's path) and the source modules its page needs. */
export interface RoutePreload {
  pattern: string;
  modules: string[];
}

/** Where the build leaves the map: under `.vite/`, which the server never serves. */
export const ROUTE_PRELOADS_FILE = '.vite/route-preloads.json';

/**
 * Writes, for each route, the hashed files its page loads beyond what index.html already names
 * (the entry and its static imports): the server adds them to index.html as `modulepreload`
 * links when it answers that path, so the browser fetches a page's code while the entry is still
 * downloading instead of after the entry has run and the router has asked for it.
 */
export function routePreloads(routes: RoutePreload[]): Plugin {
  return {
    name: 'gantry-route-preloads',
    apply: 'build',
    generateBundle(_options, bundle) {
      const chunks = Object.values(bundle).filter((c): c is OutputChunk => c.type === 'chunk');
      const byFile = new Map(chunks.map((c) => [c.fileName, c]));
      const closure = (roots: OutputChunk[]) => {
        const seen = new Set<string>();
        const todo = [...roots];
        while (todo.length) {
          const c = todo.pop()!;
          if (seen.has(c.fileName)) continue;
          seen.add(c.fileName);
          for (const f of c.imports) {
            const next = byFile.get(f);
            if (next) todo.push(next);
          }
        }
        return seen;
      };
      const entry = closure(chunks.filter((c) => c.isEntry));
      const out = routes.map((r) => {
        const roots = r.modules.map((m) => {
          const chunk = chunks.find((c) => c.facadeModuleId?.replaceAll('\\', '/').endsWith(`/${m}`));
          if (!chunk) throw new Error(`route-preloads: no chunk has ${m} as its module (is it imported lazily?)`);
          return chunk;
        });
        return { pattern: r.pattern, files: [...closure(roots)].filter((f) => !entry.has(f)).sort() };
      });
      this.emitFile({ type: 'asset', fileName: ROUTE_PRELOADS_FILE, source: `${JSON.stringify(out, null, 2)}\n` });
    },
  };
}
