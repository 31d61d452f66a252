import path from 'node:path';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    // Tests run against the contracts' source, so they never depend on a stale build.
    alias: { '@gantry/contracts': path.resolve(import.meta.dirname, 'packages/contracts/src/index.ts') },
  },
  test: {
    include: ['packages/*/src/**/*.test.ts', 'apps/server/src/**/*.test.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
