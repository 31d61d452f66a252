import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import type { Plugin } from 'vite';

const brotli = promisify(zlib.brotliCompress);
const gzip = promisify(zlib.gzip);

/**
 * Writes a brotli (`.br`) and a gzip (`.gz`) copy beside each text file of the build, once, at the
 * highest levels: the server sends the copy the browser accepts as it is, without compressing
 * anything per request (apps/server/src/platform/static-assets.ts). A copy that would not be
 * smaller is left out (the server then sends the file itself).
 */
export function precompress(): Plugin {
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
