import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';

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

export default defineConfig({
  plugins: [react(), precompress()],
  // The manifest lets scripts/check-bundle.mjs find what the sign-in page loads.
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    manifest: true,
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
