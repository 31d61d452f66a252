import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';
import { FIRST_ROUTES } from './src/app/first-routes';

const brotli = promisify(zlib.brotliCompress);
const gzip = promisify(zlib.gzip);

/**
 * Writes a brotli (`.br`) and a gzip (`.gz`) copy beside each text file of the build, once, at the
 * highest levels: the server sends the copy the browser accepts as it is, without compressing
 * anything per request (apps/server/src/platform/static-assets.ts). A copy that would not be
 * smaller is left out (the server then sends the file itself).
 */
function precompress(): Plugin {
  return {
    name: 'gantry-precompress',
    apply: 'build',
    async writeBundle(options, bundle) {
      const dir = options.dir ?? 'dist';
      const files = Object.keys(bundle).filter((f) => /\.(js|css|html|svg|json)$/.test(f) && !f.startsWith('.'));
      await Promise.all(
        files.map(async (f) => {
          const file = path.join(dir, f);
          const data = await readFile(file);
          const [br, gz] = await Promise.all([
            brotli(data, {
              params: {
                [zlib.constants.BROTLI_PARAM_QUALITY]: 11,
                [zlib.constants.BROTLI_PARAM_SIZE_HINT]: data.length,
              },
            }),
            gzip(data, { level: 9 }),
          ]);
          if (br.length < data.length) await writeFile(`${file}.br`, br);
          if (gz.length < data.length) await writeFile(`${file}.gz`, gz);
        }),
      );
    },
  };
}

/**
 * Writes dist/first-routes.json: per route of src/app/first-routes.ts, the files its modules load
 * (their chunks and every chunk those import, less what index.html already names) and its first
 * API calls. The server sends them as `Link` preloads with index.html. A module missing from the
 * build fails it.
 */
function firstRoutes(): Plugin {
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
      const root = path.resolve(import.meta.dirname);
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

/**
 * Fewer, larger files for a first load. Left to itself the bundler splits the code a page loads
 * into many small shared chunks (66 files for a project's dashboard, 17 for the entry alone); over
 * HTTP/1.1's six connections each costs a round trip, on a phone's network most of the wait
 * (measured with bench/lighthouse.mjs: the dashboard from 66 files to 8). Four groups:
 * - `initial`: everything the entry loads (the bundler's own `$initial` mark; every page needs it);
 * - `console`: what the app shell and the dashboard load beyond it, less what the sign-in page also
 *   loads (every signed-in page needs the shell; other screens then load the dashboard's few KB);
 * - `sign-in-page`: what only the sign-in page loads;
 * - `forms`: what both load beyond the entry (text fields, menus, the language menu), so neither
 *   loads the other's code.
 * The sets come from the module graph at buildEnd. A barrel file (one that only re-exports, like
 * @mui/material's index or the contracts' index) counts only for the names a module imports from
 * it, else every component would look used. The first three take no dependencies along (each set
 * is closed under them already, less what an earlier group holds); `forms` does, so that what the
 * graph walk missed of its dependencies joins it rather than import back into it from a chunk of
 * its own.
 */
function chunkPlan() {
  const sets = { console: new Set<string>(), signIn: new Set<string>(), both: new Set<string>() };
  const root = path.resolve(import.meta.dirname);
  const plugin: Plugin = {
    name: 'gantry-chunk-plan',
    apply: 'build',
    async buildEnd() {
      const info = (id: string) => this.getModuleInfo(id);
      const reExportOnly = (code: string) =>
        !code
          .replace(/\/\*[\s\S]*?\*\/|\/\/[^\n]*/g, '')
          .split(/;|\n/)
          .some((s) => s.trim() && !/^(export\s*(\*|\{[^}]*\})\s*from\s*["'][^"']+["']|import\s*\*\s*as\s*\w+\s*from\s*["'][^"']+["']|export\s*\{[^}]*\})$/.test(s.trim()));
      const barrels = new Map<string, boolean>();
      const isBarrel = (id: string) => {
        if (!barrels.has(id)) barrels.set(id, reExportOnly(info(id)?.code ?? 'x'));
        return barrels.get(id)!;
      };
      // The module a barrel hands `name` on from, following nested barrels; undefined if none does.
      const resolveName = async (barrel: string, name: string, depth = 0): Promise<string | undefined> => {
        const code = info(barrel)?.code ?? '';
        for (const m of code.matchAll(/export\s*\{([^}]*)\}\s*from\s*["']([^"']+)["']/g)) {
          const names = m[1]!.split(',').map((n) => n.trim().split(/\s+as\s+/).pop());
          if (names.includes(name)) return (await this.resolve(m[2]!, barrel))?.id;
        }
        if (depth > 4) return undefined;
        for (const m of code.matchAll(/export\s*\*\s*from\s*["']([^"']+)["']/g)) {
          const target = (await this.resolve(m[1]!, barrel))?.id;
          if (!target) continue;
          if (isBarrel(target)) {
            const found = await resolveName(target, name, depth + 1);
            if (found) return found;
          } else if (info(target)?.exports.includes(name)) return target;
        }
        return undefined;
      };
      // A module's static dependencies, a barrel replaced by what the module takes from it.
      const depsOf = async (id: string) => {
        const mod = info(id);
        if (!mod) return [];
        const deps: string[] = [];
        const fromBarrel = new Map<string, string[] | 'all'>();
        for (const m of (mod.code ?? '').matchAll(/import\s*(?:(\*\s*as\s*\w+)|\{([^}]*)\}|\w+\s*,\s*\{([^}]*)\})\s*from\s*["']([^"']+)["']/g)) {
          const target = (await this.resolve(m[4]!, id))?.id;
          if (!target || !isBarrel(target)) continue;
          const names = m[1] ? 'all' : (m[2] ?? m[3])!.split(',').map((n) => n.trim().split(/\s+as\s+/)[0]!).filter(Boolean);
          const had = fromBarrel.get(target);
          fromBarrel.set(target, had === 'all' || names === 'all' ? 'all' : [...(had ?? []), ...names]);
        }
        for (const dep of mod.importedIds) {
          const names = fromBarrel.get(dep);
          if (!isBarrel(dep) || !names || names === 'all') {
            deps.push(dep);
            continue;
          }
          for (const n of names) {
            const target = await resolveName(dep, n);
            // A name not found: the whole barrel, as the bundler would (never less than used).
            if (!target) {
              deps.push(dep);
              break;
            }
            deps.push(target);
          }
        }
        return deps;
      };
      const closure = async (start: string[]) => {
        const seen = new Set<string>();
        const todo = start.map((m) => path.join(root, m));
        while (todo.length) {
          const id = todo.pop()!;
          if (seen.has(id)) continue;
          seen.add(id);
          todo.push(...(await depsOf(id)));
        }
        return seen;
      };
      const entry = await closure(['src/main.tsx']);
      const signedIn = await closure(['src/app/shell/app-shell.tsx', 'src/app/screens/project-dashboard.ts']);
      const signIn = await closure(['src/app/screens/sign-in.tsx']);
      for (const id of signedIn) if (!entry.has(id) && !signIn.has(id)) sets.console.add(id);
      for (const id of signIn) if (!entry.has(id)) (signedIn.has(id) ? sets.both : sets.signIn).add(id);
    },
  };
  const groups = [
    { name: 'initial', tags: ['$initial' as const], priority: 30, includeDependenciesRecursively: false },
    { name: 'console', test: (id: string) => sets.console.has(id), priority: 20, includeDependenciesRecursively: false },
    { name: 'sign-in-page', test: (id: string) => sets.signIn.has(id), priority: 10, includeDependenciesRecursively: false },
    { name: 'forms', test: (id: string) => sets.both.has(id), priority: 5 },
  ];
  return { plugin, groups };
}

const chunks = chunkPlan();

export default defineConfig({
  plugins: [react(), precompress(), firstRoutes(), chunks.plugin],
  // The manifest lets scripts/check-bundle.mjs find what the sign-in page loads.
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    manifest: true,
    // The entry is one file on purpose (chunkPlan's comment): ~650 KB before compression.
    chunkSizeWarningLimit: 700,
    rolldownOptions: {
      // The contracts package only declares values: the console loads a contracts file (and the
      // zod schemas in it) with the screen that uses it, not all of them with the sign-in page.
      // `z.…(…)` calls build schemas and nothing else, so unused ones are dropped; zod-config.ts
      // calls zod's `config` by that name so that call stays (check-bundle.mjs makes sure).
      treeshake: {
        moduleSideEffects: [{ test: /packages[\\/]contracts[\\/]/, sideEffects: false }],
        manualPureFunctions: ['z'],
      },
      // Dictionaries are named locale-<code>-<hash>.js, so it is plain which one a page downloads.
      output: {
        codeSplitting: { groups: chunks.groups },
        chunkFileNames: (chunk) =>
          chunk.facadeModuleId && /[\\/]src[\\/]locales[\\/][^\\/]+\.json$/.test(chunk.facadeModuleId)
            ? 'assets/locale-[name]-[hash].js'
            : 'assets/[name]-[hash].js',
      },
    },
  },
  server: {
    port: 5173,
    proxy: { '/api': { target: 'http://localhost:3000', ws: true } },
  },
});
