import path from 'node:path';
import { configDefaults, defineConfig } from 'vitest/config';

/**
 * Files run each in a fresh process: the console's, which replace modules (vi.mock) for the file.
 * Every other file shares its worker's loaded modules with the files before it (isolate: false):
 * loading the server's modules again for each of some 250 files took more CPU time than many
 * files' tests. Such a file cleans up what it starts (servers, pools, processes), as they all do.
 */
const ISOLATED = ['apps/web/src/**/*.test.ts'];

export default defineConfig({
  resolve: {
    // Tests run against the contracts' source, so they never depend on a stale build.
    alias: { '@gantry/contracts': path.resolve(import.meta.dirname, 'packages/contracts/src/index.ts') },
  },
  test: {
    pool: 'forks',
    // Two test files at a time even on two cores: most of a file's time is spent waiting on task
    // processes and databases (measured: the server suite on SQLite 3m21s with one, 2m05s with two).
    maxWorkers: 2,
    // The log-streaming tests measure retained memory after a full collection.
    execArgv: ['--expose-gc'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    projects: [
      {
        extends: true,
        test: {
          name: 'shared',
          include: ['packages/*/src/**/*.test.ts', 'apps/server/src/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...ISOLATED],
          isolate: false,
        },
      },
      { extends: true, test: { name: 'isolated', include: ISOLATED } },
    ],
  },
});
