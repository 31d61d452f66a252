// Shared set-up for the benchmarks: a real server (the built one, in this process) on a temp
// SQLite database (or a fresh PostgreSQL one, see benchDbEnv), an admin session, and a project
// whose bash template runs a script from a local git repository; plus the measuring helpers the
// log benchmarks share (server RSS sampling, waiting for a task, counting its stored lines).
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const dist = (p) => path.join(root, 'apps/server/dist', p);

export async function startBenchServer(extraEnv = {}) {
  if (!fs.existsSync(dist('app.js'))) throw new Error('Build first: npm run build');
  const { buildApp } = await import(dist('app.js'));
  const { loadConfig } = await import(dist('config/config.js'));
  const { createDb } = await import(dist('db/db.js'));
  const { migrateToLatest } = await import(dist('db/migrate.js'));
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gantry-bench-'));
  const config = loadConfig({
    GANTRY_DATA_DIR: dataDir,
    GANTRY_LOG_LEVEL: 'silent',
    GANTRY_WEB_DIST: '/nonexistent',
    // bashTemplate's repositories are local folders under the temp folder.
    GANTRY_ALLOWED_LOCAL_PATHS: os.tmpdir(),
    PATH: process.env.PATH,
    ...extraEnv,
  });
  const db = createDb(config.dbUrl);
  await migrateToLatest(db);
  const app = await buildApp({ config, db, secretKey: randomBytes(32) });
  // As the server's start does before the first task.
  await app.services.spreadTaskFolders();
  await app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${app.server.address().port}`;
  await app.services.users.create({ username: 'bench', name: 'Bench', email: 'b@e.io', password: 'bench-pass', admin: true, external: false, alert: false });
  const login = await fetch(`${base}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ auth: 'bench', password: 'bench-pass' }) });
  const cookie = login.headers.get('set-cookie').split(';')[0];
  const api = apiClient(base, cookie);
  const close = async () => {
    await app.close();
    await db.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
    fs.rmSync(`${dataDir}-tasks`, { recursive: true, force: true });
  };
  return { app, db, base, cookie, api, close };
}

/** JSON calls to the server at `base` with a session cookie; throws on a 4xx/5xx answer. */
export function apiClient(base, cookie) {
  return async (method, url, body) => {
    const res = await fetch(`${base}${url}`, {
      method,
      headers: { cookie, 'x-gantry-request': '1', ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const text = await res.text();
    if (res.status >= 400) throw new Error(`${method} ${url}: ${res.status} ${text}`);
    return text ? JSON.parse(text) : null;
  };
}

/**
 * A project with a bash template running `script` from a fresh local repository; `files` more
 * small files beside it (50 to a folder), for a repository of a real project's size.
 */
export async function bashTemplate(api, script, files = 0) {
  const repo = fs.mkdtempSync(path.join(os.tmpdir(), 'gantry-bench-repo-'));
  process.once('exit', () => fs.rmSync(repo, { recursive: true, force: true }));
  fs.writeFileSync(path.join(repo, 'run.sh'), script);
  for (let i = 0; i < files; i++) {
    const dir = path.join(repo, `d${Math.floor(i / 50)}`);
    if (i % 50 === 0) fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, `f${i}.txt`), `file ${i}\n`);
  }
  const env = { ...process.env, GIT_AUTHOR_NAME: 'b', GIT_AUTHOR_EMAIL: 'b@e', GIT_COMMITTER_NAME: 'b', GIT_COMMITTER_EMAIL: 'b@e' };
  execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: repo });
  execFileSync('git', ['add', '-A'], { cwd: repo, env });
  execFileSync('git', ['commit', '-qm', 'bench'], { cwd: repo, env });
  const project = await api('POST', '/api/projects', { name: `bench-${Date.now()}` });
  const key = await api('POST', `/api/project/${project.id}/keys`, { name: 'none', type: 'none' });
  const repository = await api('POST', `/api/project/${project.id}/repositories`, { name: 'r', git_url: repo, ssh_key_id: key.id });
  const environment = await api('POST', `/api/project/${project.id}/environment`, { name: 'e' });
  const template = await api('POST', `/api/project/${project.id}/templates`, { name: 't', app: 'bash', playbook: 'run.sh', repository_id: repository.id, environment_id: environment.id });
  return { projectId: project.id, templateId: template.id };
}

export function median(values) {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

/** Finished statuses of a task (the ones after which nothing more is logged). */
export const FINISHED = ['success', 'error', 'stopped', 'rejected'];

/** Polls the task until it has finished; answers the task. */
export async function waitFinished(api, projectId, taskId, everyMs = 50) {
  for (;;) {
    const task = await api('GET', `/api/project/${projectId}/tasks/${taskId}`);
    if (FINISHED.includes(task.status)) return task;
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/**
 * The database a benchmark runs on: `sqlite` (a temp file, startBenchServer's default) or
 * `pg`, a fresh database on the local PostgreSQL (PG_URL, default postgres://postgres@127.0.0.1:5432)
 * dropped by `drop()`. Answers the extra environment for startBenchServer (or startConsoleServer)
 * and the engine's name for the printed line (`label`). A script calls `drop()` in a `finally`, so
 * the database goes also when the run fails.
 */
export async function benchDb(kind = process.env.DB ?? 'sqlite') {
  if (kind === 'sqlite') return { kind, label: 'SQLite', env: {}, drop: async () => {} };
  if (kind !== 'pg') throw new Error(`DB must be sqlite or pg, not ${kind}`);
  const { default: pg } = await import('pg');
  const server = process.env.PG_URL ?? 'postgres://postgres@127.0.0.1:5432';
  const name = `gantry_bench_${process.pid}_${Date.now()}`;
  const admin = new pg.Client({ connectionString: `${server}/postgres` });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  return {
    kind,
    label: 'PostgreSQL',
    env: { GANTRY_DB_URL: `${server}/${name}` },
    drop: async () => {
      const c = new pg.Client({ connectionString: `${server}/postgres` });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

/**
 * Samples this process's RSS (the server runs in it) every `everyMs`; `stop()` answers the
 * baseline at start, the peak and the growth (peak - baseline), in MB.
 */
export function rssSampler(everyMs = 20) {
  globalThis.gc?.();
  const baseline = process.memoryUsage().rss;
  let peak = baseline;
  const timer = setInterval(() => {
    const rss = process.memoryUsage().rss;
    if (rss > peak) peak = rss;
  }, everyMs);
  return {
    stop() {
      clearInterval(timer);
      peak = Math.max(peak, process.memoryUsage().rss);
      const mb = (n) => n / 1024 / 1024;
      return { baselineMb: mb(baseline), peakMb: mb(peak), growthMb: mb(peak - baseline) };
    },
  };
}

/**
 * Reads the task's whole log as text (GET …/raw_output, streamed) and checks that it holds the
 * lines `1`…`n` of `seq 1 n`, in order. Answers { numbers, inOrder, lines, bytes, ms }.
 */
export async function readRawOutput(base, cookie, projectId, taskId, n = Infinity) {
  const t0 = performance.now();
  const res = await fetch(`${base}/api/project/${projectId}/tasks/${taskId}/raw_output`, { headers: { cookie } });
  if (res.status !== 200) throw new Error(`raw_output: ${res.status} ${await res.text()}`);
  const decoder = new TextDecoder();
  let rest = '';
  let lines = 0;
  let numbers = 0;
  let expected = 1;
  let inOrder = true;
  let bytes = 0;
  const take = (line) => {
    lines += 1;
    if (/^\d+$/.test(line)) {
      numbers += 1;
      if (Number(line) !== expected) inOrder = false;
      expected += 1;
    }
  };
  for await (const chunk of res.body) {
    bytes += chunk.length;
    const text = rest + decoder.decode(chunk, { stream: true });
    let start = 0;
    for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', start)) {
      take(text.slice(start, i));
      start = i + 1;
    }
    rest = text.slice(start);
  }
  if (rest) take(rest);
  return { numbers, inOrder: inOrder && (n === Infinity || numbers === n), lines, bytes, ms: performance.now() - t0 };
}

/**
 * The 1-minute load average and the CPU's speed right now, for the record: the figures are only
 * comparable on a quiet machine at the same speed. A virtual machine's vCPU may run at half its
 * speed after a minute of load (its host's budget or neighbours), which shows in `spin`.
 */
export function load() {
  return `load ${os.loadavg()[0].toFixed(1)} on ${os.cpus().length} cores, spin ${spinMs()} ms`;
}

/** Milliseconds one core takes for a fixed loop of integer work (lower is faster). */
export function spinMs() {
  const t0 = performance.now();
  let x = 0;
  for (let i = 0; i < 1e8; i++) x = (x + (i % 7)) | 0;
  if (x === 42) console.log('');
  return Math.round(performance.now() - t0);
}

export const fmt = (n) => Math.round(n).toLocaleString('en');

/**
 * The whole machine's CPU time from /proc/stat (Linux), between this call and `stop()`: answers
 * busy, user (user + nice) and kernel (system + irq + softirq) seconds across all cores. Per unit
 * of work it is a figure that does not depend on how many cores there are — but only on a quiet
 * machine, since every process counts.
 */
export function machineCpu() {
  const read = () => {
    const f = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    const [user, nice, system, , , irq, softirq, steal] = f;
    return { user: user + nice, kernel: system + irq + softirq, busy: user + nice + system + irq + softirq + (steal ?? 0) };
  };
  const hz = 100; // USER_HZ: the unit of /proc/stat on every Linux architecture Node runs on
  const start = read();
  return {
    stop() {
      const end = read();
      return {
        busyS: (end.busy - start.busy) / hz,
        userS: (end.user - start.user) / hz,
        kernelS: (end.kernel - start.kernel) / hz,
      };
    },
  };
}
