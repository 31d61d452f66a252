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
    // The log-streaming tests measure retained memory after a full collection.
    execArgv: ['--expose-gc'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
