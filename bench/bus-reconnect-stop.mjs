// How soon a stop lands once the bus is back (issue 22, item 5): two built server processes (nodes
// A and B) on one fresh PostgreSQL database, each reaching it through a TCP proxy of this script
// that can cut it (its pool and its bus go away together, as when its network or the database
// flaps). Per run: a looping task runs on A (posted while B is cut, so A claims it); A's proxy is
// cut; the stop is sent to B (stored, but A hears nothing); 1.2 s later A's proxy is restored. From
// that moment: the time until the task's processes are gone (read from /proc) and until its status
// is `stopped` (read from the database directly, not through the proxies). RUNS (default 5): median
// and max; the nodes' RSS. Target: ≤ 1.5 s for both. PostgreSQL only (the bus is LISTEN/NOTIFY).
// Run after `npm run build -w @gantry/contracts && npm run build -w @gantry/server`:
//   node bench/bus-reconnect-stop.mjs   (RUNS=…, PG_URL=…)
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { apiClient, bashTemplate, benchDb, load, median } from './common.mjs';

const RUNS = Number(process.env.RUNS ?? 5);
const TARGET_MS = 1500;
const root = path.resolve(import.meta.dirname, '..');
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Polls `fn` every `everyMs` until it answers something truthy; throws after `timeoutMs`. */
async function until(what, fn, timeoutMs = 20_000, everyMs = 10) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(everyMs);
  }
}

/** A TCP proxy to `host:port` that can be cut (every connection dropped, new ones refused) and restored. */
async function tcpProxy(host, port) {
  const open = new Set();
  let up = true;
  const server = net.createServer((client) => {
    if (!up) return client.destroy();
    const upstream = net.connect(port, host);
    open.add(client).add(upstream);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      open.delete(client);
      open.delete(upstream);
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const cut = () => {
    up = false;
    for (const s of open) s.destroy();
    open.clear();
  };
  return {
    url(target) {
      const u = new URL(target);
      u.hostname = '127.0.0.1';
      u.port = String(server.address().port);
      return u.toString();
    },
    cut,
    restore: () => (up = true),
    close: () => (cut(), new Promise((r) => server.close(r))),
  };
}

async function freePort() {
  const s = net.createServer();
  await new Promise((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address();
  await new Promise((r) => s.close(r));
  return port;
}

/** One built server process on `dbUrl`; answers { name, base, api, proc, dataDir, rssMb(), peakRssMb() }. */
async function startNode(name, dbUrl, secret) {
  const port = await freePort();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `gantry-bench-${name}-`));
  let stderr = '';
  const proc = spawn(process.execPath, [path.join(root, 'apps/server/bin/gantry.mjs'), 'server'], {
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      GANTRY_DB_URL: dbUrl,
      GANTRY_DATA_DIR: dataDir,
      GANTRY_PORT: String(port),
      GANTRY_HOST: '127.0.0.1',
      GANTRY_SECRET_KEY: secret,
      GANTRY_ADMIN: 'bench',
      GANTRY_ADMIN_PASSWORD: 'bench-pass',
      GANTRY_ADMIN_EMAIL: 'b@e.io',
      GANTRY_ADMIN_NAME: 'Bench',
      GANTRY_LOG_LEVEL: 'warn',
      GANTRY_WEB_DIST: '/nonexistent',
      GANTRY_NODE_ADDRESS: `127.0.0.1:${port}`,
      GANTRY_ALLOWED_LOCAL_PATHS: os.tmpdir(),
    },
    // Quiet unless it fails (its warnings during the cuts would break the one-line output).
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  proc.stderr.on('data', (d) => (stderr = (stderr + d).slice(-4000)));
  const base = `http://127.0.0.1:${port}`;
  await until(
    `node ${name} to start`,
    async () => {
      if (proc.exitCode !== null) throw new Error(`node ${name} exited (${proc.exitCode}): ${stderr}`);
      return fetch(`${base}/api/ping`).then(
        (r) => r.ok,
        () => false,
      );
    },
    30_000,
    100,
  );
  const login = await fetch(`${base}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ auth: 'bench', password: 'bench-pass' }),
  });
  if (!login.ok) throw new Error(`sign-in on ${name}: ${login.status} ${await login.text()}`);
  const cookie = login.headers.get('set-cookie').split(';')[0];
  const status = (field) =>
    Number(
      /(\d+) kB/.exec(
        fs
          .readFileSync(`/proc/${proc.pid}/status`, 'utf8')
          .split('\n')
          .find((l) => l.startsWith(field)) ?? '',
      )?.[1] ?? 0,
    ) / 1024;
  return {
    name,
    base,
    api: apiClient(base, cookie),
    proc,
    dataDir,
    rssMb: () => status('VmRSS:'),
    peakRssMb: () => status('VmHWM:'),
  };
}

/**
 * Pids of the task's processes: its bash script, started from a node's task folder (this script's
 * nodes only: other servers on the machine have tasks with the same ids).
 */
function taskProcesses(taskId) {
  const folders = nodes.map((n) => `${n.dataDir}-tasks/task_${taskId}/`);
  return fs.readdirSync('/proc').filter((n) => {
    if (!/^\d+$/.test(n)) return false;
    try {
      const cmd = fs.readFileSync(`/proc/${n}/cmdline`, 'utf8');
      return folders.some((f) => cmd.includes(f));
    } catch {
      return false;
    }
  });
}

const database = await benchDb('pg');
const url = database.env.GANTRY_DB_URL;
const target = new URL(url);
const direct = new pg.Client({ connectionString: url });
const proxyA = await tcpProxy(target.hostname, Number(target.port || 5432));
const proxyB = await tcpProxy(target.hostname, Number(target.port || 5432));
const nodes = [];
const taskIds = [];
const results = [];
let mem;
try {
  const secret = randomBytes(32).toString('base64');
  // One after the other: the first one migrates the database.
  const a = await startNode('node-a', proxyA.url(url), secret);
  nodes.push(a);
  const b = await startNode('node-b', proxyB.url(url), secret);
  nodes.push(b);
  await direct.connect();
  // A's id in the cluster: its row carries the address it was given.
  const nodeA = (await direct.query('SELECT id FROM node WHERE address = $1', [new URL(a.base).host])).rows[0]?.id;
  if (!nodeA) throw new Error('node A has no row in the node table');
  const taskRow = async (id) => (await direct.query('SELECT status, node_id FROM task WHERE id = $1', [id])).rows[0];
  const ready = (n) =>
    until(
      `${n.name} to be ready`,
      () =>
        fetch(`${n.base}/api/ready`).then(
          (r) => r.status === 200,
          () => false,
        ),
      30_000,
      25,
    );
  const { projectId, templateId } = await bashTemplate(
    b.api,
    'i=0\nwhile true; do i=$((i+1)); echo "tick $i"; sleep 0.2; done\n',
  );

  for (let run = 0; run < RUNS; run++) {
    // Posted while B cannot reach the database: A claims it.
    proxyB.cut();
    const task = await a.api('POST', `/api/project/${projectId}/tasks`, { template_id: templateId });
    taskIds.push(task.id);
    // Its script running (a line of its own stored), not still in its checkout: a checkout cut
    // from the database would not start the script, and there would be nothing to stop.
    await until(
      'the task to run on A',
      async () =>
        (await taskRow(task.id))?.status === 'running' &&
        (await taskRow(task.id)).node_id === nodeA &&
        (await direct.query("SELECT 1 FROM task_output WHERE task_id = $1 AND output LIKE 'tick %' LIMIT 1", [task.id]))
          .rowCount > 0 &&
        taskProcesses(task.id).length > 0,
    );
    proxyB.restore();
    await ready(b);

    // A's pool and bus away: the stop, made on B, is stored, but A hears nothing of it.
    proxyA.cut();
    await sleep(300);
    await b.api('POST', `/api/project/${projectId}/tasks/${task.id}/stop`, {});
    await sleep(1_200);
    const during = await taskRow(task.id);
    if (during.status !== 'stopping' || taskProcesses(task.id).length === 0)
      throw new Error(
        `run ${run + 1}: the task was ${during.status} with ${taskProcesses(task.id).length} processes while A was cut`,
      );
    const restored = performance.now();
    proxyA.restore();
    let goneMs = null;
    let stoppedMs = null;
    await until(
      'the process gone and the task stopped',
      async () => {
        if (goneMs === null && taskProcesses(task.id).length === 0) goneMs = performance.now() - restored;
        if (stoppedMs === null && (await taskRow(task.id)).status === 'stopped')
          stoppedMs = performance.now() - restored;
        return goneMs !== null && stoppedMs !== null;
      },
      30_000,
      10,
    );
    results.push({ goneMs, stoppedMs });
    await ready(a);
  }
  mem = nodes.map((n) => `${n.name} ${n.rssMb().toFixed(0)} MB (peak ${n.peakRssMb().toFixed(0)} MB)`).join(', ');
} finally {
  await direct.end().catch(() => {});
  for (const n of nodes) {
    if (n.proc.exitCode === null && n.proc.signalCode === null) {
      const exited = new Promise((r) => n.proc.once('exit', r));
      n.proc.kill('SIGKILL');
      await exited;
    }
  }
  // A task of a failed run may outlive its killed node: end it (it runs from this script's own task folders).
  for (const id of taskIds)
    for (const pid of taskProcesses(id)) {
      try {
        process.kill(Number(pid), 'SIGKILL');
      } catch {
        // Gone meanwhile.
      }
    }
  for (const n of nodes) {
    fs.rmSync(n.dataDir, { recursive: true, force: true });
    fs.rmSync(`${n.dataDir}-tasks`, { recursive: true, force: true });
  }
  await proxyA.close();
  await proxyB.close();
  await database.drop();
}

const gone = results.map((r) => r.goneMs);
const stopped = results.map((r) => r.stoppedMs);
const ms = (n) => `${Math.round(n)} ms`;
const ok = Math.max(...gone, ...stopped) <= TARGET_MS;
console.log(
  `stop sent while the running node's bus was down (PostgreSQL, 2 nodes), from the bus restored over ${RUNS} runs: ` +
    `task processes gone median ${ms(median(gone))}, max ${ms(Math.max(...gone))}; status stopped median ${ms(median(stopped))}, max ${ms(Math.max(...stopped))} ` +
    `(target ≤ ${TARGET_MS.toLocaleString('en')} ms) [each run gone/stopped: ${results.map((r) => `${Math.round(r.goneMs)}/${Math.round(r.stoppedMs)}`).join(', ')} ms]; ` +
    `server RSS ${mem} [${load()}]${ok ? '' : ' — MISSED'}`,
);
if (!ok) process.exitCode = 1;
