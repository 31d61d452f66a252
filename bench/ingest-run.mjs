// One log-ingest run shared by log-ingest.mjs, log-ingest-watched.mjs and log-ingest-pg.mjs: a
// task running `seq 1 LINES` on a fresh server, optionally watched by `watchers` consoles over the
// WebSocket (ws-watchers.mjs, in a child process so the server's memory is measured alone).
import { fork } from 'node:child_process';
import path from 'node:path';
import { WebSocket } from 'ws';
import { bashTemplate, benchDb, readRawOutput, rssSampler, startBenchServer, waitFinished } from './common.mjs';

/**
 * The server's sends of `logs` messages, per socket, timed where they leave the hub: the server
 * (in this process) and this bench share the `ws` module, and only the server's sockets live here
 * (the watchers run in a child process). Answers a stop function giving each socket's send times.
 */
function recordLogSends() {
  const original = WebSocket.prototype.send;
  const sends = new Map();
  WebSocket.prototype.send = function (data, ...rest) {
    if (typeof data === 'string' && data.startsWith('{"type":"logs"')) {
      let times = sends.get(this);
      if (!times) sends.set(this, (times = []));
      times.push(performance.now());
    }
    return original.call(this, data, ...rest);
  };
  return () => {
    WebSocket.prototype.send = original;
    return [...sends.values()];
  };
}

/** Most entries of `times` (ascending ms) within any `windowMs`, and the shortest interval. */
export function burstiness(times, windowMs = 50) {
  let most = 0;
  let shortest = Infinity;
  for (let i = 0, j = 0; i < times.length; i++) {
    while (times[i] - times[j] >= windowMs) j++;
    most = Math.max(most, i - j + 1);
    if (i > 0) shortest = Math.min(shortest, times[i] - times[i - 1]);
  }
  return { most, shortest };
}

/**
 * Answers { status, seconds, linesPerSec, mem, stored, lastSeq, sockets }: seconds from the POST
 * to the task's final status (its lines are all stored by then), server RSS during the run (this
 * process), the stored log read back over raw_output, and what each watching socket saw.
 */
export async function ingestRun({ lines, watchers = 0, db = 'sqlite' }) {
  const start = performance.now();
  const phase = (name) => process.env.DEBUG && console.error(`[${((performance.now() - start) / 1000).toFixed(1)} s] ${name}`);
  const database = await benchDb(db);
  let server;
  let child;
  try {
    server = await startBenchServer(database.env);
    phase('server started');
    const { base, cookie, api } = server;
    const { projectId, templateId } = await bashTemplate(api, `seq 1 ${lines}\n`);
    let report;
    if (watchers > 0) {
      child = fork(path.join(import.meta.dirname, 'ws-watchers.mjs'), [], {
        env: { ...process.env, BENCH_BASE: base, BENCH_COOKIE: cookie, BENCH_SOCKETS: String(watchers) },
      });
      const messages = [];
      let waiting = null;
      child.on('message', (m) => (waiting ? waiting(m) : messages.push(m)));
      const next = () => (messages.length ? Promise.resolve(messages.shift()) : new Promise((r) => (waiting = (m) => ((waiting = null), r(m)))));
      const ready = await next();
      if (ready.type !== 'ready') throw new Error('watchers did not start');
      report = async () => {
        child.send({ type: 'report' });
        let timer;
        const timeout = new Promise((_, reject) => (timer = setTimeout(() => reject(new Error('watchers never saw the task finish')), 60_000)));
        const m = await Promise.race([next(), timeout]).finally(() => clearTimeout(timer));
        return m.sockets;
      };
    }
    const stopRecording = watchers > 0 ? recordLogSends() : () => [];
    const rss = rssSampler(20);
    phase('posting');
    const t0 = performance.now();
    const task = await api('POST', `/api/project/${projectId}/tasks`, { template_id: templateId });
    child?.send({ type: 'task', taskId: task.id });
    const done = await waitFinished(api, projectId, task.id, 20);
    const seconds = (performance.now() - t0) / 1000;
    const mem = rss.stop();
    phase('finished');
    const stored = await readRawOutput(base, cookie, projectId, task.id, lines);
    phase('read back');
    const { last_seq: lastSeq } = await api('GET', `/api/project/${projectId}/tasks/${task.id}/output?tail=1&limit=1`);
    const sockets = report ? await report() : [];
    phase('watchers reported');
    // The last send of a socket may be the flush the final update forces (its lines go out before it).
    const serverSends = stopRecording().map((times) => ({ sends: times.length, ...burstiness(times), beforeLast: burstiness(times.slice(0, -1)) }));
    return { status: done.status, seconds, linesPerSec: lines / seconds, mem, stored, lastSeq, sockets, serverSends };
  } finally {
    child?.kill();
    await server?.close();
    phase('server closed');
    await database.drop();
    phase('database dropped');
  }
}

/** The server-side view of the sends: most `logs` messages one socket was sent within any 50 ms (the last send apart). */
export function sendsLine(serverSends) {
  const most = Math.max(0, ...serverSends.map((s) => s.most));
  const shortest = Math.min(...serverSends.map((s) => s.shortest));
  const mostBefore = Math.max(0, ...serverSends.map((s) => s.beforeLast.most));
  const shortestBefore = Math.min(...serverSends.map((s) => s.beforeLast.shortest));
  return {
    // The last send of a socket may follow the one before sooner: the task's final `update` goes
    // out at once and takes the task's lines gathered so far ahead of it (the same allowance as
    // socketLine's "+ 2").
    ok: mostBefore <= 1 && most <= 2,
    text:
      `server side: ${serverSends.length} sockets sent ${serverSends.map((s) => s.sends).join('/')} logs messages, most to one socket in any 50 ms: ${most}, shortest interval ${shortest.toFixed(1)} ms ` +
      `(without each socket's last send: ${mostBefore}, ${shortestBefore.toFixed(1)} ms)`,
  };
}

/** One socket's figures as text, and whether it met the targets (≤ 1 message per 50 ms, every line). */
export function socketLine(s, lastSeq) {
  const allowed = Math.floor(s.spanMs / 50) + 2; // one per 50 ms, plus the flush the final update forces
  const complete = s.lastSeq === lastSeq && s.holes === 0 && s.overlaps === 0;
  const rate = s.messages <= allowed;
  const before = (s.firstSeq ?? 1) - 1;
  const text =
    `#${s.index + 1}: ${s.messages} msgs in ${(s.spanMs / 1000).toFixed(2)} s (max ${allowed} at 1/50 ms; most in any 50 ms on arrival: ${s.maxPer50ms}), ` +
    `${(s.bytes / 1024 / 1024).toFixed(1)} MB, ${s.lines} lines live + ${s.gapLines} in ${s.gaps} gaps + ${before} before subscribing = up to seq ${s.lastSeq} of ${lastSeq}` +
    `${s.holes ? `, ${s.holes} lines MISSING` : ''}${s.overlaps ? `, ${s.overlaps} DUPLICATED` : ''}${s.finalStatus ? '' : ', NEVER SAW THE END'}${s.closed !== null ? `, closed ${s.closed}` : ''}`;
  return { text, complete, rate };
}
