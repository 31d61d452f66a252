// The console's bundle after `npm run build`: the sign-in route's gzip size (what a first visit
// to /auth/login downloads before the form shows) against its 250 KB budget, and the number of
// chunks. The build's own check (apps/web/scripts/check-bundle.mjs) measures it; this prints its
// figures on one line. Run after `npm run build`: node bench/bundle-size.mjs
import { spawnSync } from 'node:child_process';
import path from 'node:path';

const check = path.resolve(import.meta.dirname, '../apps/web/scripts/check-bundle.mjs');
const r = spawnSync(process.execPath, [check], { encoding: 'utf8' });
const text = `${r.stdout}${r.stderr}`.trim().split('\n').join('; ');
console.log(`bundle: ${text} (target ≤ 250 KB gzip)${r.status === 0 ? '' : ' — MISSED'}`);
if (r.status !== 0) process.exitCode = 1;
