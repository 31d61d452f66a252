// Log ingest with legacy sockets watching (Semaphore's console: /api/ws without `logs=subscribe`,
// per-line `log` frames of every task): a task prints 1,000,000 lines with 0 and then 5 such sockets
// open, on SQLite and, when PostgreSQL is at hand (PG_URL, or the server of GANTRY_TEST_PG_URL), on
// PostgreSQL. Per run: lines/s from POST to all stored (target ≥ 300,000 with 5 watchers, 400,000
// with none), the server's RSS growth (peak, sampled every 20 ms), the stored log read back; per
// socket its frames and lines received + lines told as gaps = every line (legacy-watchers.mjs, in
// a child process whose CPU time is printed: it shares the machine), and the server's writes to
// it, counted where they reach its TCP socket (at most one per 50 ms per task).
// Run after `npm run build`: node bench/log-ingest-legacy.mjs   (LINES=…, WATCHERS=…, DB=sqlite|pg)
import { fork } from 'node:child_process';
import { Socket } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import {
  bashTemplate,
  benchDb,
  fmt,
  load,
  readRawOutput,
  rssSampler,
  startBenchServer,
  waitFinished,
} from './common.mjs';

const LINES = Number(process.env.LINES ?? 1_000_000);
const WATCHERS = Number(process.env.WATCHERS ?? 5);
if (!process.env.PG_URL && process.env.GANTRY_TEST_PG_URL) {
  const u = new URL(process.env.GANTRY_TEST_PG_URL);
  u.pathname = '';
  process.env.PG_URL = u.toString().replace(/\/$/, '');
}
const engines = process.env.DB ? [process.env.DB] : ['sqlite', ...(process.env.PG_URL ? ['pg'] : [])];

/** The legacy sockets, in a child process; answers { report() } once they are connected. */
async function startWatchers(base, cookie, count) {
  const child = fork(path.join(import.meta.dirname, 'legacy-watchers.mjs'), [], {
    env: { ...process.env, BENCH_BASE: base, BENCH_COOKIE: cookie, BENCH_SOCKETS: String(count) },
  });
  const inbox = [];
  let waiting = null;
  child.on('message', (m) => (waiting ? waiting(m) : inbox.push(m)));
  const next = (ms) =>
    new Promise((resolve, reject) => {
      if (inbox.length) return resolve(inbox.shift());
      const timer = setTimeout(() => reject(new Error('the watchers did not answer')), ms);
      waiting = (m) => ((waiting = null), clearTimeout(timer), resolve(m));
    });
  if ((await next(10_000)).type !== 'ready') throw new Error('watchers did not start');
  return {
    child,
    task: (taskId) => child.send({ type: 'task', taskId }),
    report: async () => (child.send({ type: 'report' }), await next(60_000)),
  };
}

/**
 * The server's writes of lines to each connection (this process runs the server): writes on the
 * server's side of a connection of whole text frames (0x81 and more than a frame header: `ws`
 * writes a message's header apart from its text, an HTTP answer never starts with 0x81). Answers
 * a stop function giving each connection's write times.
 */
function recordFrameWrites(port) {
  const original = Socket.prototype.write;
  const writes = new Map();
  Socket.prototype.write = function (data, ...rest) {
    if (this.localPort === port && typeof data !== 'string' && data[0] === 0x81 && data.length > 10) {
      let times = writes.get(this);
      if (!times) writes.set(this, (times = []));
      times.push(performance.now());
    }
    return original.call(this, data, ...rest);
  };
  return () => {
    Socket.prototype.write = original;
    return [...writes.values()];
  };
}

/** Most of `times` (ascending ms) within any 50 ms. */
function most50(times) {
  let most = 0;
  for (let i = 0, j = 0; i < times.length; i++) {
    while (times[i] - times[j] >= 50) j++;
    most = Math.max(most, i - j + 1);
  }
  return most;
}

async function run(db, watchers) {
  const database = await benchDb(db);
  let server;
  let w;
  try {
    // bashTemplate's repository is a local folder in the temp folder.
    server = await startBenchServer({ ...database.env, GANTRY_ALLOWED_LOCAL_PATHS: os.tmpdir() });
    const { base, cookie, api } = server;
    const { projectId, templateId } = await bashTemplate(api, `seq 1 ${LINES}\n`);
    w = watchers > 0 ? await startWatchers(base, cookie, watchers) : null;
    const stopRecording = recordFrameWrites(Number(new URL(base).port));
    const rss = rssSampler(20);
    const t0 = performance.now();
    const task = await api('POST', `/api/project/${projectId}/tasks`, { template_id: templateId });
    w?.task(task.id);
    await waitFinished(api, projectId, task.id, 20);
    const seconds = (performance.now() - t0) / 1000;
    const mem = rss.stop();
    const writes = stopRecording();
    const stored = await readRawOutput(base, cookie, projectId, task.id, LINES);
    const { last_seq: lastSeq } = await api('GET', `/api/project/${projectId}/tasks/${task.id}/output?tail=1&limit=1`);
    const report = w ? await w.report() : { sockets: [], cpuMs: 0 };
    return {
      seconds,
      linesPerSec: LINES / seconds,
      mem,
      stored,
      lastSeq,
      sockets: report.sockets,
      watchersCpuMs: report.cpuMs,
      writes,
    };
  } finally {
    w?.child.kill();
    await server?.close();
    await database.drop();
  }
}

let missed = false;
for (const db of engines) {
  for (const watchers of [0, WATCHERS]) {
    const r = await run(db, watchers);
    const okStored = r.stored.numbers === LINES && r.stored.inOrder;
    const complete = r.sockets.filter(
      (s) => s.lastSeq === r.lastSeq && s.holes === 0 && s.overlaps === 0 && s.finalStatus,
    );
    const target = watchers > 0 ? 300_000 : 400_000;
    const ok = r.linesPerSec >= target && okStored && complete.length === r.sockets.length;
    missed ||= !ok;
    console.log(
      `log ingest (${db === 'pg' ? 'PostgreSQL' : 'SQLite'}, ${watchers} legacy watching): ${fmt(LINES)} lines in ${r.seconds.toFixed(2)} s = ${fmt(r.linesPerSec)} lines/s (target ≥ ${fmt(target)}); ` +
        `server RSS ${r.mem.baselineMb.toFixed(0)} MB +${r.mem.growthMb.toFixed(0)} MB peak; stored ${fmt(r.stored.numbers)} of ${fmt(LINES)}${okStored ? '' : ' NOT ALL'}` +
        (watchers
          ? `; sockets: ${complete.length}/${watchers} every line (live or told as a gap), their process used ${(r.watchersCpuMs / 1000).toFixed(1)} s of CPU`
          : '') +
        ` [${load()}]${ok ? '' : ' — MISSED'}`,
    );
    if (watchers && process.env.VERBOSE !== '0') {
      // The last write may follow the one before sooner: the task's final update takes the lines gathered so far ahead of it.
      console.log(
        `  server side: ${r.writes.length} sockets written lines ${r.writes.map((t) => fmt(t.length)).join('/')} times, ` +
          `most in any 50 ms: ${Math.max(0, ...r.writes.map((t) => most50(t.slice(0, -1))))} (with the last write: ${Math.max(0, ...r.writes.map(most50))})`,
      );
      for (const s of r.sockets)
        console.log(
          `  #${s.index + 1}: ${fmt(s.frames)} frames (${fmt(s.lines)} lines live + ${fmt(s.gapLines)} in ${s.gaps} gaps) over ${(s.spanMs / 1000).toFixed(2)} s; ` +
            `${(s.bytes / 1024 / 1024).toFixed(1)} MB; up to seq ${s.lastSeq} of ${r.lastSeq}` +
            `${s.holes ? `, ${s.holes} MISSING` : ''}${s.overlaps ? `, ${s.overlaps} DUPLICATED` : ''}${s.finalStatus ? '' : ', NEVER SAW THE END'}${s.closed !== null ? `, closed ${s.closed}` : ''}`,
        );
    }
  }
}
if (missed) process.exitCode = 1;
