// `npm start`: builds whatever is missing or older than its sources, then serves API and console
// (`gantry server`). Migrations run as the server starts.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const parts = [
  { name: '@gantry/contracts', src: 'packages/contracts/src', out: 'packages/contracts/dist/index.js' },
  { name: '@gantry/server', src: 'apps/server/src', out: 'apps/server/dist/cli/main.js' },
  { name: '@gantry/web', src: 'apps/web/src', out: 'apps/web/dist/index.html' },
];

function newest(dir) {
  let t = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    t = Math.max(t, e.isDirectory() ? newest(p) : fs.statSync(p).mtimeMs);
  }
  return t;
}

let stale = false;
for (const part of parts) {
  const out = path.join(root, part.out);
  // Once one part is rebuilt, the ones that depend on it are rebuilt too.
  stale ||= !fs.existsSync(out) || newest(path.join(root, part.src)) > fs.statSync(out).mtimeMs;
  if (stale) {
    process.stdout.write(`Building ${part.name}...\n`);
    const r = spawnSync('npm', ['run', 'build', '--silent', '-w', part.name], { cwd: root, stdio: 'inherit' });
    if (r.status !== 0) process.exit(r.status ?? 1);
  }
}

const { main } = await import(path.join(root, 'apps/server/dist/cli/main.js'));
await main(['server', ...process.argv.slice(2)]);
