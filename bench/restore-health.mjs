// Whether a large restore stalls the server: an ~8 MB project backup (SIZE_MB) restored through
// POST /api/projects/restore (sent by curl, another process) while a child process polls
// GET /api/health (health-poller.mjs). Prints the worst and the 99th-percentile health answer
// while the restore ran, how many answers there were, the longest event-loop stall in the server
// and how much of it the process spent on the CPU (a stall with little CPU time is the machine's
// other work, not the server's), the restore's own time and the server's RSS (peak, sampled every
// 20 ms). Target: the worst health answer ≤ 100 ms. On SQLite then PostgreSQL.
// Run after `npm run build`: node bench/restore-health.mjs   (DB=sqlite or DB=pg for one engine; SIZE_MB=…)
import { execFile, fork } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { benchDb, fmt, load, rssSampler, startBenchServer } from './common.mjs';

const SIZE_MB = Number(process.env.SIZE_MB ?? 8);
const TARGET_MS = 100;
const engines = process.env.DB ? [process.env.DB] : ['sqlite', 'pg'];
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'gantry-bench-restore-'));
process.once('exit', () => fs.rmSync(tmp, { recursive: true, force: true }));
let failed = false;

/**
 * A Gantry backup of about `mb` MB: keys, repositories and views, then inventories, variable
 * groups and templates in equal numbers (their texts make up the size), schedules and integrations
 * with a matcher and an extracted value for a quarter of the templates.
 */
function largeBackup(mb) {
  const n = Math.max(1, Math.round(mb * 160));
  const ids = (count) => Array.from({ length: count }, (_, i) => i + 1);
  const hosts = ids(60)
    .map((i) => `host-${i}.example.com ansible_port=22 role=web`)
    .join('\n');
  const vars = JSON.stringify(Object.fromEntries(ids(40).map((i) => [`var_${i}`, `value-${i}-`.repeat(3)])));
  const description = 'A template restored from a large backup. '.repeat(40);
  return {
    meta: { format: 'gantry-project-backup', version: 1, name: `Restored ${mb} MB` },
    keys: ids(20).map((id) => ({ id, name: `key ${id}`, type: 'none' })),
    repositories: ids(20).map((id) => ({
      id,
      name: `repo ${id}`,
      git_url: `https://git.example.com/acme/r${id}.git`,
      git_branch: 'main',
      ssh_key_id: id,
    })),
    inventories: ids(n).map((id) => ({ id, name: `inv ${id}`, type: 'static', inventory: hosts, ssh_key_id: 1 })),
    environments: ids(n).map((id) => ({ id, name: `env ${id}`, json: vars, env: '{}' })),
    views: ids(10).map((id) => ({ id, title: `view ${id}`, position: id })),
    templates: ids(n).map((id) => ({
      id,
      name: `tpl ${id}`,
      description,
      app: 'ansible',
      playbook: 'site.yml',
      inventory_id: id,
      repository_id: (id % 20) + 1,
      environment_id: id,
      view_id: (id % 10) + 1,
    })),
    schedules: ids(Math.ceil(n / 4)).map((id) => ({ name: `sched ${id}`, template_id: id, cron_format: '0 3 * * *' })),
    integrations: ids(Math.ceil(n / 4)).map((id) => ({
      name: `hook ${id}`,
      template_id: id,
      matchers: [
        {
          name: 'main',
          match_type: 'body',
          body_data_type: 'json',
          key: 'ref',
          method: 'equals',
          value: 'refs/heads/main',
        },
      ],
      extract_values: [
        {
          name: 'sha',
          value_source: 'body',
          body_data_type: 'json',
          key: 'after',
          variable_type: 'environment',
          variable: 'COMMIT',
        },
      ],
    })),
  };
}

/**
 * Event-loop stalls of this process (the server's): a timer every `everyMs`; `stop()` answers the
 * longest delay of a tick, the CPU time the process used over it, and the most CPU time used
 * between two ticks (a stretch of the server's own work that nothing could interrupt).
 */
function stallMonitor(everyMs = 5) {
  let last = performance.now();
  let lastCpu = process.cpuUsage();
  let worst = { lateMs: 0, cpuMs: 0 };
  let cpuBound = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    const cpu = process.cpuUsage();
    const cpuMs = (cpu.user - lastCpu.user + cpu.system - lastCpu.system) / 1000;
    const lateMs = now - last - everyMs;
    if (lateMs > worst.lateMs) worst = { lateMs, cpuMs };
    cpuBound = Math.max(cpuBound, Math.min(cpuMs, now - last));
    last = now;
    lastCpu = cpu;
  }, everyMs);
  return {
    stop() {
      clearInterval(timer);
      return { ...worst, cpuBound };
    },
  };
}

/** The health poller in its own process; `stop()` answers its latencies. */
async function startPoller(base) {
  const child = fork(path.join(import.meta.dirname, 'health-poller.mjs'), [], {
    env: { ...process.env, BENCH_BASE: base },
  });
  const message = (type) => new Promise((resolve) => child.on('message', (m) => m.type === type && resolve(m)));
  await message('ready');
  return {
    stop: async () => {
      const report = message('report');
      child.send({ type: 'stop' });
      return report;
    },
  };
}

const doc = largeBackup(SIZE_MB);
const file = path.join(tmp, 'backup.json');
fs.writeFileSync(file, JSON.stringify(doc));
const bytes = fs.statSync(file).size;
const objects = Object.entries(doc)
  .filter(([k]) => k !== 'meta')
  .reduce((sum, [, list]) => sum + list.length, 0);

for (const engine of engines) {
  const database = await benchDb(engine);
  let server;
  try {
    server = await startBenchServer(database.env);
    const { base, cookie } = server;
    const poller = await startPoller(base);
    // Let the poller settle in, then measure only what happens around the restore.
    await new Promise((r) => setTimeout(r, 200));
    const stalls = stallMonitor();
    const rss = rssSampler(20);
    const t0 = performance.now();
    const answer = path.join(tmp, `answer-${engine}.json`);
    const { stdout } = await promisify(execFile)('curl', [
      '-sS',
      '-o',
      answer,
      '-w',
      '%{http_code}',
      '-X',
      'POST',
      '-H',
      `cookie: ${cookie}`,
      '-H',
      'x-gantry-request: 1',
      '-H',
      'content-type: application/json',
      '--data-binary',
      `@${file}`,
      `${base}/api/projects/restore`,
    ]);
    const seconds = (performance.now() - t0) / 1000;
    const mem = rss.stop();
    const stall = stalls.stop();
    const { latencies, failures } = await poller.stop();
    if (stdout.trim() !== '201')
      throw new Error(`restore answered ${stdout.trim()}: ${fs.readFileSync(answer, 'utf8').slice(0, 500)}`);
    const sorted = [...latencies].sort((a, b) => a - b);
    const worst = sorted.at(-1) ?? Infinity;
    const p99 = sorted[Math.floor(sorted.length * 0.99)] ?? Infinity;
    const missed = worst > TARGET_MS || failures > 0;
    if (missed) failed = true;
    console.log(
      `${database.label}: restore of ${(bytes / 1024 / 1024).toFixed(1)} MB (${fmt(objects)} objects) in ${seconds.toFixed(1)} s; ` +
        `/api/health answered ${latencies.length} times meanwhile${failures ? ` (${failures} FAILED)` : ''}, worst ${worst.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms; ` +
        `longest event-loop stall ${stall.lateMs.toFixed(1)} ms (${stall.cpuMs.toFixed(1)} ms on the CPU), longest CPU-bound stretch ${stall.cpuBound.toFixed(1)} ms; server RSS ${mem.baselineMb.toFixed(0)} → peak ${mem.peakMb.toFixed(0)} MB (+${mem.growthMb.toFixed(0)} MB); ` +
        `target worst ≤ ${TARGET_MS} ms${missed ? ' — MISSED' : ''}; ${load()}`,
    );
  } finally {
    await server?.close();
    await database.drop();
  }
}
process.exit(failed ? 1 : 0);
