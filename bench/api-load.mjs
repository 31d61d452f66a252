// API latency under load: CLIENTS concurrent clients (in a child process, so their work does not
// share the server's event loop) for SECONDS, each looping over POST /api/project/{id}/tasks and
// the list endpoints the console polls (/api/projects, /api/project/{id}/tasks/last,
// /api/project/{id}/templates). The tasks are trivial (`echo ok`) and run meanwhile
// (GANTRY_MAX_PARALLEL_TASKS=MAX_PARALLEL). Prints p50/p99 per endpoint, requests/s and the server's
// RSS. Targets: POST /tasks p99 ≤ 100 ms, list endpoints p99 ≤ 50 ms. SQLite by default; DB=pg.
// Run after `npm run build`: node bench/api-load.mjs   (CLIENTS, SECONDS, MAX_PARALLEL, DB)
import { fork } from 'node:child_process';
import { apiClient, bashTemplate, benchDb, load, rssSampler, startBenchServer } from './common.mjs';

const CLIENTS = Number(process.env.CLIENTS ?? 50);
const SECONDS = Number(process.env.SECONDS ?? 20);
const MAX_PARALLEL = Number(process.env.MAX_PARALLEL ?? 10);

if (process.env.BENCH_CLIENT) {
  process.send(await clients(JSON.parse(process.env.BENCH_CLIENT)));
  process.exit(0);
}

const pct = (values, p) => {
  const s = [...values].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor((s.length * p) / 100))] : NaN;
};

const database = await benchDb();
let server;
let missed = false;
try {
  server = await startBenchServer({ ...database.env, GANTRY_MAX_PARALLEL_TASKS: String(MAX_PARALLEL) });
  const { base, cookie, api } = server;
  const { projectId, templateId } = await bashTemplate(api, 'echo ok\n');
  const rss = rssSampler(50);
  const child = fork(import.meta.filename, [], { env: { ...process.env, BENCH_CLIENT: JSON.stringify({ base, cookie, projectId, templateId }) } });
  const r = await new Promise((resolve, reject) => child.once('message', resolve).once('exit', (code) => reject(new Error(`clients exited with ${code}`))));
  const mem = rss.stop();
  const total = Object.values(r.times).reduce((n, t) => n + t.length, 0);
  const parts = Object.entries(r.times).map(([name, t]) => {
    const p99 = pct(t, 99);
    const target = name.startsWith('POST') ? 100 : 50;
    if (!(p99 <= target)) missed = true;
    return `${name} p50 ${pct(t, 50).toFixed(0)} / p99 ${p99.toFixed(0)} ms (≤ ${target})`;
  });
  if (r.errors) missed = true;
  console.log(
    `API under load (${database.kind === 'pg' ? 'PostgreSQL' : 'SQLite'}, ${CLIENTS} clients, ${r.seconds.toFixed(0)} s, tasks running in ${MAX_PARALLEL} slots): ${parts.join('; ')}; ` +
      `${(total / r.seconds).toFixed(0)} requests/s${r.errors ? `, ${r.errors} errors` : ''}; server RSS ${mem.baselineMb.toFixed(0)} MB +${mem.growthMb.toFixed(0)} MB peak [${load()}]${missed ? ' — MISSED' : ''}`,
  );
} finally {
  await server?.close();
  await database.drop();
}
if (missed) process.exitCode = 1;

/** The clients: each loops over the four calls until SECONDS have passed; answers the times per call. */
async function clients({ base, cookie, projectId, templateId }) {
  const api = apiClient(base, cookie);
  const calls = {
    'POST /tasks': () => api('POST', `/api/project/${projectId}/tasks`, { template_id: templateId }),
    'GET /projects': () => api('GET', '/api/projects'),
    'GET /tasks/last': () => api('GET', `/api/project/${projectId}/tasks/last`),
    'GET /templates': () => api('GET', `/api/project/${projectId}/templates`),
  };
  const names = Object.keys(calls);
  const times = Object.fromEntries(names.map((n) => [n, []]));
  let errors = 0;
  const t0 = performance.now();
  const end = t0 + SECONDS * 1000;
  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, c) => {
      for (let i = c; performance.now() < end; i++) {
        const name = names[i % names.length];
        const s = performance.now();
        try {
          await calls[name]();
          times[name].push(performance.now() - s);
        } catch {
          errors += 1;
        }
      }
    }),
  );
  return { times, errors, seconds: (performance.now() - t0) / 1000 };
}
