import path from 'node:path';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    // Tests run against the contracts' source, so they never depend on a stale build.
    alias: { '@gantry/contracts': path.resolve(import.meta.dirname, 'packages/contracts/src/index.ts') },
  },
  test: {
    include: ['packages/*/src/**/*.test.ts', 'apps/server/src/**/*.test.ts', 'apps/web/src/**/*.test.ts'],
    pool: 'forks',
    // Two test files at a time even on two cores: most of a file's time is spent waiting on task
    // processes and databases (measured: the server suite on SQLite 3m21s with one, 2m05s with two).
    maxWorkers: 2,
    // The log-streaming tests measure retained memory after a full collection.
    execArgv: ['--expose-gc'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
