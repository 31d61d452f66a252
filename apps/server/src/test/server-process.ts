// Real server processes for tests that need them (a cluster, a database outage, a shutdown): the
// built server (`npm run build` first; `npm test` does), each with its own data folder and port.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { CSRF_HEADER } from '@gantry/contracts';
import { TEST_ALLOWED_LOCAL_PATHS } from './git-fixture.js';
import type { Caller } from './harness.js';
import type { TestDatabase } from './engines.js';

export const SERVER_BIN = path.resolve(import.meta.dirname, '../../bin/gantry.mjs');
const BUILT = path.resolve(import.meta.dirname, '../../dist/cli/main.js');
export const NODE_ADMIN = { login: 'cluster-admin', password: 'cluster-pass-1' };
/**
 * The Node.js a server process runs on: the machine's (the one `npm install` built better-sqlite3
 * for), not necessarily the test runner's own (the suite runs again under Node.js 24 with its own
 * copy of the addon, which a child process would not load).
 */
export const SERVER_NODE = 'node';

export interface ServerNode {
  name: string;
  port: number;
  base: string;
  dataDir: string;
  proc: ChildProcess;
  /** Everything the process printed so far (stdout and stderr). */
  output: string[];
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A port nothing listens on now (the system picks it), for a server about to start. */
export async function freePort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((resolve, reject) => probe.once('error', reject).listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as net.AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** Throws the way to fix it when the built server is missing. */
export function assertServerBuilt(): void {
  if (!fs.existsSync(BUILT)) throw new Error(`Build the server first (npm run build): ${BUILT} is missing`);
}

/**
 * Starts the built server on `db` and waits until it answers /api/ping. `env` adds or overrides
 * settings; `dataDir` reuses a data folder (a restart).
 */
export async function startNode(
  name: string,
  db: Pick<TestDatabase, 'url'>,
  secret: string,
  env: Record<string, string> = {},
  dataDir?: string,
  givenPort?: number,
): Promise<ServerNode> {
  assertServerBuilt();
  const port = givenPort ?? (await freePort());
  const dir = dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), `gantry-node-${name}-`));
  const output: string[] = [];
  const proc = spawn(SERVER_NODE, [SERVER_BIN], {
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      GANTRY_DB_URL: db.url,
      GANTRY_DATA_DIR: dir,
      GANTRY_PORT: String(port),
      GANTRY_HOST: '127.0.0.1',
      GANTRY_SECRET_KEY: secret,
      GANTRY_ADMIN: NODE_ADMIN.login,
      GANTRY_ADMIN_PASSWORD: NODE_ADMIN.password,
      GANTRY_LOG_LEVEL: 'warn',
      GANTRY_WEB_DIST: '/nonexistent',
      GANTRY_NODE_ADDRESS: `127.0.0.1:${port}`,
      GANTRY_ALLOWED_LOCAL_PATHS: TEST_ALLOWED_LOCAL_PATHS,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  proc.stdout!.on('data', (b: Buffer) => output.push(b.toString()));
  proc.stderr!.on('data', (b: Buffer) => output.push(b.toString()));
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`node ${name} exited: ${output.join('')}`);
    const up = await fetch(`${base}/api/ping`).then((r) => r.ok, () => false);
    if (up) break;
    if (Date.now() > deadline) throw new Error(`node ${name} did not start: ${output.join('')}`);
    await sleep(100);
  }
  return { name, port, base, dataDir: dir, proc, output };
}

/** Sends `signal` and waits for the process to exit (at once when it already has). */
export async function stopNode(n: ServerNode, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (n.proc.exitCode !== null || n.proc.signalCode !== null) return;
  const exited = new Promise((resolve) => n.proc.once('exit', resolve));
  n.proc.kill(signal);
  await exited;
}

/** The harness's Caller over real HTTP with a session cookie, for one node. */
export async function signInNode(base: string, who: { login: string; password: string } = NODE_ADMIN): Promise<Caller> {
  const res = await fetch(`${base}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ auth: who.login, password: who.password }),
  });
  if (res.status !== 204) throw new Error(`sign-in: ${res.status} ${await res.text()}`);
  const cookie = res.headers.get('set-cookie')!.split(';')[0]!;
  const send = async (method: string, url: string, body?: unknown) => {
    const r = await fetch(`${base}${url}`, {
      method,
      headers: { cookie, [CSRF_HEADER]: '1', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await r.text();
    return { statusCode: r.status, body: text, headers: Object.fromEntries(r.headers), json: () => JSON.parse(text) as unknown };
  };
  const caller = {
    id: 0,
    username: who.login,
    password: who.password,
    cookie: cookie.split('=').slice(1).join('='),
    get: (url: string) => send('GET', url),
    post: (url: string, body?: unknown) => send('POST', url, body),
    put: (url: string, body?: unknown) => send('PUT', url, body),
    del: (url: string) => send('DELETE', url),
  };
  return caller as unknown as Caller;
}
