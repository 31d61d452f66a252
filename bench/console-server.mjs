// The built server in a child process serving a built console, for the browser benchmarks
// (lighthouse.mjs, click-to-first-line.mjs): its memory is then the server's alone (Lighthouse
// and Playwright run in the bench's own process), read from /proc. An admin `bench` exists
// from the start (GANTRY_ADMIN…); `cookie` is its session.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { apiClient } from './common.mjs';

const root = path.resolve(import.meta.dirname, '..');

/** The console to serve: WEB_DIST (e.g. a `vite build --outDir` elsewhere) or apps/web/dist. */
export function webDist() {
  const dir = path.resolve(process.env.WEB_DIST ?? path.join(root, 'apps/web/dist'));
  if (!fs.existsSync(path.join(dir, 'index.html')))
    throw new Error(`No console in ${dir}: build first (npm run build) or set WEB_DIST`);
  return dir;
}

async function freePort() {
  const s = net.createServer();
  await new Promise((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address();
  await new Promise((r) => s.close(r));
  return port;
}

/** Starts the server; answers { base, cookie, api, pid, rssMb(), peakRssMb(), close() }. */
export async function startConsoleServer(extraEnv = {}) {
  if (!fs.existsSync(path.join(root, 'apps/server/dist/cli/main.js'))) throw new Error('Build first: npm run build');
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gantry-bench-web-'));
  const port = await freePort();
  const child = spawn(process.execPath, [path.join(root, 'apps/server/bin/gantry.mjs'), 'server'], {
    env: {
      PATH: process.env.PATH,
      GANTRY_PORT: String(port),
      GANTRY_HOST: '127.0.0.1',
      GANTRY_DATA_DIR: dataDir,
      GANTRY_LOG_LEVEL: 'warn',
      GANTRY_WEB_DIST: webDist(),
      GANTRY_ADMIN: 'bench',
      GANTRY_ADMIN_PASSWORD: 'bench-pass',
      GANTRY_ADMIN_EMAIL: 'b@e.io',
      GANTRY_ADMIN_NAME: 'Bench',
      GANTRY_ALLOWED_LOCAL_PATHS: os.tmpdir(),
      ...extraEnv,
    },
    // Quiet unless it fails to start (its start-up notes would break the one-line output).
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  // Never left running, whatever ends this process.
  const stop = () => child.kill('SIGTERM');
  process.once('exit', stop);
  let stderr = '';
  child.stderr.on('data', (d) => (stderr = (stderr + d).slice(-4000)));
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`the server exited (${child.exitCode}): ${stderr}`);
    const up = await fetch(`${base}/api/ping`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) break;
    if (i > 300) throw new Error('the server did not start within 30 s');
    await new Promise((r) => setTimeout(r, 100));
  }
  const login = await fetch(`${base}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ auth: 'bench', password: 'bench-pass' }),
  });
  const cookie = login.headers.get('set-cookie').split(';')[0];
  const status = (field) =>
    Number(
      /(\d+) kB/.exec(
        fs
          .readFileSync(`/proc/${child.pid}/status`, 'utf8')
          .split('\n')
          .find((l) => l.startsWith(field)) ?? '',
      )?.[1] ?? 0,
    ) / 1024;
  return {
    base,
    cookie,
    api: apiClient(base, cookie),
    pid: child.pid,
    rssMb: () => status('VmRSS:'),
    peakRssMb: () => status('VmHWM:'),
    async close() {
      process.off('exit', stop);
      child.kill('SIGTERM');
      await new Promise((r) => (child.exitCode !== null ? r() : child.once('exit', r)));
      fs.rmSync(dataDir, { recursive: true, force: true });
      fs.rmSync(`${dataDir}-tasks`, { recursive: true, force: true });
    },
  };
}
