import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';
import { chunkPlan } from './build-plugins/chunk-plan';
import { firstRoutes } from './build-plugins/first-routes';
import { precompress } from './build-plugins/precompress';

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
      // boot-entry.ts: the modules main.tsx runs step by step belong to the entry's file.
      input: { index: 'index.html', boot: 'src/app/boot-entry.ts' },
      // …which makes main.tsx's imports of them by design "ineffective" for splitting.
      checks: { ineffectiveDynamicImport: false },
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
        // The groups take modules out of the bundler's own order (chunkPlan does not pull their
        // dependencies along): each module's body then runs in source order wherever it landed.
        // Without it a module could run before one it needs (seen as a user menu showing the old
        // and the new name side by side, one time in four).
        strictExecutionOrder: true,
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
