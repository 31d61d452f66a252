import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Plugin } from 'vite';
import { FIRST_ROUTES } from '../src/app/first-routes';

/**
 * Writes dist/first-routes.json: per route of src/app/first-routes.ts, the files its modules load
 * (their chunks and every chunk those import, less what index.html already names) and its first
 * API calls. The server sends them as `Link` preloads with index.html. A module missing from the
 * build fails it.
 */
export function firstRoutes(): Plugin {
  return {
    name: 'gantry-first-routes',
    apply: 'build',
    async writeBundle(options, bundle) {
      const dir = options.dir ?? 'dist';
      const chunks = Object.values(bundle).filter((c) => c.type === 'chunk');
      const closure = (roots: string[]) => {
        const seen = new Set<string>();
        const todo = [...roots];
        while (todo.length) {
          const file = todo.shift()!;
          if (seen.has(file)) continue;
          seen.add(file);
          const chunk = bundle[file];
          if (chunk?.type === 'chunk') todo.push(...chunk.imports);
        }
        return seen;
      };
      const entry = closure(chunks.filter((c) => c.isEntry).map((c) => c.fileName));
      const root = path.resolve(import.meta.dirname, '..');
      const routes = FIRST_ROUTES.map((r) => {
        const roots = r.modules.map((m) => {
          // A module's own chunk, or the chunk a code-splitting group took it into.
          const chunk = chunks.find((c) => c.moduleIds.includes(path.join(root, m)));
          if (!chunk) throw new Error(`first-routes.ts: ${m} is no chunk of the build`);
          return chunk.fileName;
        });
        const files = [...closure(roots)].filter((f) => !entry.has(f)).map((f) => `/${f}`);
        return { path: r.path, files, data: r.data };
      });
      await writeFile(path.join(dir, 'first-routes.json'), JSON.stringify(routes, null, 1));
    },
  };
}
