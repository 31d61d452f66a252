// Task throughput: TASKS trivial bash tasks (`echo ok`, SCRIPT=…) posted at once to one project with
// MAX_PARALLEL slots, on a local repository of REPO_FILES more files (default 0) whose checkout is
// cached (one task runs first to fill the cache). Measures the
// time from the first POST to all finished (→ tasks/s), the answer time of the bulk POSTs and of
// PROBES single POSTs (another project) made one after another once they are queued, while they run, the server's
// event-loop delay (p99, max) during the run, the machine's CPU time per task (quiet machine only), and its RSS before, at peak, right after and IDLE_S
// seconds after (the idle level after a flood). Targets: ≥ 60 tasks/s on a quiet 2-core machine;
// the probe POSTs' p99 ≤ 100 ms. SQLite by default; DB=pg for a fresh PostgreSQL database.
// Run after `npm run build`: node --expose-gc bench/task-throughput.mjs   (TASKS, MAX_PARALLEL, PROBES, IDLE_S, REPO_FILES, WARM, DB)
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { bashTemplate, benchDb, FINISHED, load, machineCpu, rssSampler, startBenchServer, waitFinished } from './common.mjs';

const TASKS = Number(process.env.TASKS ?? 200);
const MAX_PARALLEL = Number(process.env.MAX_PARALLEL ?? 10);
const PROBES = Number(process.env.PROBES ?? 20);
const IDLE_S = Number(process.env.IDLE_S ?? 30);
const SCRIPT = process.env.SCRIPT ?? 'echo ok\n';
const REPO_FILES = Number(process.env.REPO_FILES ?? 0);
/** Untimed floods first (a server that has run a while: its code compiled by the JIT). */
const WARM = Number(process.env.WARM ?? 0);

const pct = (values, p) => {
  const s = [...values].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor((s.length * p) / 100))] : NaN;
};
const mb = () => process.memoryUsage().rss / 1024 / 1024;
const timed = async (fn) => {
  const t0 = performance.now();
  const r = await fn();
  return { r, ms: performance.now() - t0 };
};

const database = await benchDb();
let server;
try {
  server = await startBenchServer({ ...database.env, GANTRY_MAX_PARALLEL_TASKS: String(MAX_PARALLEL) });
  const { api, db } = server;
  const busy = await bashTemplate(api, SCRIPT, REPO_FILES);
  const probe = await bashTemplate(api, SCRIPT, REPO_FILES);
  // Fills the repository cache of both projects: the run measures cached tasks.
  for (const p of [busy, probe]) await waitFinished(api, p.projectId, (await api('POST', `/api/project/${p.projectId}/tasks`, { template_id: p.templateId })).id);
  for (let w = 0; w < WARM; w++) {
    await Promise.all(Array.from({ length: TASKS }, () => api('POST', `/api/project/${busy.projectId}/tasks`, { template_id: busy.templateId })));
    await allFinished(db);
  }
  globalThis.gc?.();
  const rssStart = mb();
  const rss = rssSampler(50);
  const loop = monitorEventLoopDelay({ resolution: 5 });
  loop.enable();
  const cpu = machineCpu();
  const t0 = performance.now();
  const bulkMs = (
    await Promise.all(
      Array.from({ length: TASKS }, () => timed(() => api('POST', `/api/project/${busy.projectId}/tasks`, { template_id: busy.templateId }))),
    )
  ).map((x) => x.ms);
  // Probes: one POST at a time while the queued tasks run, as a user would click "Run" meanwhile.
  const probeMs = [];
  for (let i = 0; i < PROBES; i++) {
    probeMs.push((await timed(() => api('POST', `/api/project/${probe.projectId}/tasks`, { template_id: probe.templateId }))).ms);
    await new Promise((r) => setTimeout(r, 50));
  }
  await allFinished(db);
  const seconds = (performance.now() - t0) / 1000;
  const used = cpu.stop();
  loop.disable();
  const mem = rss.stop();
  const failed = await db.db.selectFrom('task').select((eb) => eb.fn.countAll().as('n')).where('status', '!=', 'success').executeTakeFirstOrThrow();
  const rssAfter = mb();
  await new Promise((r) => setTimeout(r, IDLE_S * 1000));
  globalThis.gc?.();
  const rssIdle = mb();
  const total = TASKS + PROBES;
  const rate = total / seconds;
  const ok = rate >= 60 && pct(probeMs, 99) <= 100 && Number(failed.n) === 0;
  console.log(
    `task throughput (${database.kind === 'pg' ? 'PostgreSQL' : 'SQLite'}, ${MAX_PARALLEL} slots, ${JSON.stringify(SCRIPT.trim())}${REPO_FILES ? `, ${REPO_FILES + 1} files` : ''}${WARM ? `, after ${WARM} untimed flood(s)` : ''}): ${total} tasks in ${seconds.toFixed(1)} s = ${rate.toFixed(1)} tasks/s (target ≥ 60)` +
      `${Number(failed.n) ? `, ${failed.n} not successful` : ''}; bulk POST p50 ${pct(bulkMs, 50).toFixed(0)} / p99 ${pct(bulkMs, 99).toFixed(0)} ms; ` +
      `single POST while running p50 ${pct(probeMs, 50).toFixed(0)} / p99 ${pct(probeMs, 99).toFixed(0)} ms (target ≤ 100); ` +
      `machine CPU per task ${((used.busyS * 1000) / total).toFixed(1)} ms (user ${((used.userS * 1000) / total).toFixed(1)}, kernel ${((used.kernelS * 1000) / total).toFixed(1)}); ` +
      `event-loop delay p99 ${(loop.percentile(99) / 1e6).toFixed(0)} / max ${(loop.max / 1e6).toFixed(0)} ms; ` +
      `server RSS ${rssStart.toFixed(0)} MB → peak ${mem.peakMb.toFixed(0)} → after ${rssAfter.toFixed(0)} → ${IDLE_S} s idle ${rssIdle.toFixed(0)} MB [${load()}]${ok ? '' : ' — MISSED'}`,
  );
  if (!ok) process.exitCode = 1;
} finally {
  await server?.close();
  await database.drop();
}

/** Done when every task has finished; read straight from the database, not to add API load. */
async function allFinished(db) {
  for (;;) {
    const open = await db.db.selectFrom('task').select((eb) => eb.fn.countAll().as('n')).where('status', 'not in', FINISHED).executeTakeFirstOrThrow();
    if (Number(open.n) === 0) return;
    await new Promise((r) => setTimeout(r, 20));
  }
}
