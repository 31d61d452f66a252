// Queue fairness: 150 tasks of one project are queued (posted all at once), then one task of a
// second project. Measures how long that second project's task waits before it starts (its
// `start` minus its `created`), how many of the first project's tasks queued before it started
// after it was queued and before it (overtook it), and how long the 151 tasks take in all, on
// SQLite and, when PostgreSQL is at hand (PG_URL, or the server of GANTRY_TEST_PG_URL), on
// PostgreSQL; with the server's RSS. Target: it starts in the first free slot (overtaken by none,
// allowing for a dispatcher pass already under way), not after all the queued ones.
// Run after `npm run build`: node bench/queue-fairness.mjs   (TASKS=…, MAX_PARALLEL=…, DB=sqlite|pg, SCRIPT=…)
import os from 'node:os';
import { bashTemplate, benchDb, fmt, load, rssSampler, startBenchServer } from './common.mjs';

const TASKS = Number(process.env.TASKS ?? 150);
const MAX_PARALLEL = Number(process.env.MAX_PARALLEL ?? 10);
// Each task takes a while, as real ones do, so a queue builds: the delay measured is the queue's.
const SCRIPT = process.env.SCRIPT ?? 'sleep 1\n';
if (!process.env.PG_URL && process.env.GANTRY_TEST_PG_URL) {
  const u = new URL(process.env.GANTRY_TEST_PG_URL);
  u.pathname = '';
  process.env.PG_URL = u.toString().replace(/\/$/, '');
}
const engines = process.env.DB ? [process.env.DB] : ['sqlite', ...(process.env.PG_URL ? ['pg'] : [])];

async function run(db) {
  const database = await benchDb(db);
  let server;
  try {
    // bashTemplate's repository is a local folder in the temp folder.
    server = await startBenchServer({
      ...database.env,
      GANTRY_ALLOWED_LOCAL_PATHS: os.tmpdir(),
      GANTRY_MAX_PARALLEL_TASKS: String(MAX_PARALLEL),
    });
    const { api } = server;
    const busy = await bashTemplate(api, SCRIPT);
    const other = await bashTemplate(api, SCRIPT);
    const rss = rssSampler(20);
    const t0 = performance.now();
    const queued = (
      await Promise.all(
        Array.from({ length: TASKS }, () =>
          api('POST', `/api/project/${busy.projectId}/tasks`, { template_id: busy.templateId }),
        ),
      )
    ).map((t) => t.id);
    const late = await api('POST', `/api/project/${other.projectId}/tasks`, { template_id: other.templateId });
    // Everything ends: the first project's tasks are read back for their start times.
    let lateTask;
    for (;;) {
      lateTask = await api('GET', `/api/project/${other.projectId}/tasks/${late.id}`);
      const last = await api('GET', `/api/project/${busy.projectId}/tasks/${Math.max(...queued)}`);
      if (lateTask.end && last.end) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const seconds = (performance.now() - t0) / 1000;
    const mem = rss.stop();
    const busyTasks = await api('GET', `/api/project/${busy.projectId}/tasks?limit=${TASKS}`);
    const lateStart = Date.parse(lateTask.start);
    const lateCreated = Date.parse(lateTask.created);
    const overtook = busyTasks.filter(
      (t) => Date.parse(t.start) >= lateCreated && Date.parse(t.start) < lateStart,
    ).length;
    const waiting = busyTasks.filter((t) => Date.parse(t.start) >= lateCreated).length;
    return { delayMs: lateStart - lateCreated, overtook, waiting, seconds, mem, status: lateTask.status };
  } finally {
    await server?.close();
    await database.drop();
  }
}

let missed = false;
for (const db of engines) {
  const r = await run(db);
  const ok = r.overtook <= MAX_PARALLEL && r.status === 'success';
  missed ||= !ok;
  console.log(
    `queue fairness (${db === 'pg' ? 'PostgreSQL' : 'SQLite'}, ${MAX_PARALLEL} slots, tasks running ${JSON.stringify(SCRIPT.trim())}): the second project's first task, queued while ${r.waiting} of another's ${fmt(TASKS)} still waited, ` +
      `started after ${(r.delayMs / 1000).toFixed(2)} s, overtaken by ${r.overtook} of them (target ≤ ${MAX_PARALLEL}); all ${fmt(TASKS + 1)} done in ${r.seconds.toFixed(1)} s; ` +
      `server RSS ${r.mem.baselineMb.toFixed(0)} MB +${r.mem.growthMb.toFixed(0)} MB peak [${load()}]${ok ? '' : ' — MISSED'}`,
  );
}
if (missed) process.exitCode = 1;
