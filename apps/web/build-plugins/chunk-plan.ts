import path from 'node:path';
import type { Plugin } from 'vite';

/**
 * Fewer, larger files for a first load. Left to itself the bundler splits the code a page loads
 * into many small shared chunks (66 files for a project's dashboard, 17 for the entry alone); over
 * HTTP/1.1's six connections each costs a round trip, on a phone's network most of the wait
 * (measured with bench/lighthouse.mjs: the dashboard from 66 files to 10). Four groups:
 * - `initial`: everything the entry loads, with the steps it imports one by one (boot-steps.ts);
 *   every page needs it;
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
export function chunkPlan() {
  const sets = { console: new Set<string>(), signIn: new Set<string>(), both: new Set<string>() };
  const root = path.resolve(import.meta.dirname, '..');
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
      // boot-entry.ts imports the modules main.tsx runs step by step (src/app/boot-steps.ts).
      const entry = await closure(['src/main.tsx', 'src/app/boot-entry.ts']);
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
