// Median time from POST /api/project/{id}/tasks to the task's first log line on the WebSocket, with
// a free slot. Target: ≤ 10 ms. The server runs in this process; the client (the POSTs and both
// sockets) in a child process of this script, so its clock is not held up by the server's event
// loop. Two sockets watch each run:
// - subscribe mode (/api/ws?logs=subscribe), subscribed before the POST to the id the task will get
//   (the previous one + 1: this bench is the only client), receiving `logs` messages — the console's path;
// - a legacy socket (no subscription), receiving Semaphore's per-line `log` frames of every task.
// The first figure is the subscribe-mode one; the POST's own answer time is printed too.
// SQLite by default; DB=pg for a fresh PostgreSQL database (dropped afterwards).
// Run after `npm run build`: node bench/task-start-latency.mjs   (RUNS=…, DB=…)
import { fork } from 'node:child_process';
import WebSocket from 'ws';
import { apiClient, bashTemplate, benchDb, load, median, rssSampler, startBenchServer, waitFinished } from './common.mjs';

const RUNS = Number(process.env.RUNS ?? 30);

if (process.env.BENCH_CLIENT) {
  process.send(await client(JSON.parse(process.env.BENCH_CLIENT)));
  process.exit(0);
}

const database = await benchDb();
let server;
let r;
let mem;
try {
  server = await startBenchServer(database.env);
  const { base, cookie, api } = server;
  const { projectId, templateId } = await bashTemplate(api, 'echo hello\n');
  const rss = rssSampler(20);
  const child = fork(import.meta.filename, [], { env: { ...process.env, BENCH_CLIENT: JSON.stringify({ base, cookie, projectId, templateId }) } });
  r = await new Promise((resolve, reject) => child.once('message', resolve).once('exit', (code) => reject(new Error(`client exited with ${code}`))));
  mem = rss.stop();
} finally {
  await server?.close();
  await database.drop();
}
const m = median(r.sub);
const range = (t) => `min ${Math.min(...t).toFixed(1)}, max ${Math.max(...t).toFixed(1)} ms`;
console.log(
  `task start latency (${database.label}) over ${RUNS} runs: subscribe mode median ${m.toFixed(1)} ms (${range(r.sub)}${r.missed ? `, ${r.missed} runs without a line` : ''}); ` +
    `legacy socket median ${median(r.legacy).toFixed(1)} ms (${range(r.legacy)}); the POST itself answers in median ${median(r.post).toFixed(1)} ms ` +
    `(target ≤ 10 ms); server RSS ${mem.baselineMb.toFixed(0)} MB +${mem.growthMb.toFixed(0)} MB peak [${load()}]${m <= 10 && !r.missed ? '' : ' — MISSED'}`,
);
if (!(m <= 10) || r.missed) process.exitCode = 1;

/** The client: RUNS tasks, each timed from its POST to its first line on each socket. */
async function client({ base, cookie, projectId, templateId }) {
  const api = apiClient(base, cookie);

  /** A socket and the time its first log line of each task arrived. */
  async function socket(query, type) {
    const ws = new WebSocket(`${base.replace('http', 'ws')}/api/ws${query}`, { headers: { cookie } });
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    const first = new Map();
    const waiters = new Map();
    ws.on('message', (data) => {
      const m = JSON.parse(data.toString());
      if (m.type !== type || first.has(m.task_id)) return;
      const now = performance.now();
      first.set(m.task_id, now);
      waiters.get(m.task_id)?.(now);
    });
    const firstLine = (taskId, timeoutMs = 5000) =>
      first.get(taskId) ?? new Promise((resolve) => (waiters.set(taskId, resolve), setTimeout(() => resolve(null), timeoutMs)));
    return { ws, firstLine };
  }
  const subscribed = await socket('?logs=subscribe', 'logs');
  const legacy = await socket('', 'log');
  const r = { sub: [], legacy: [], post: [], missed: 0 };
  let nextId = ((await api('GET', `/api/project/${projectId}/tasks/last?limit=1`))[0]?.id ?? 0) + 1;
  for (let i = 0; i < RUNS; i++) {
    subscribed.ws.send(JSON.stringify({ type: 'subscribe', task_id: nextId }));
    // The subscription is in before the task starts; and a socket may send at most 20 messages a second.
    await new Promise((resolve) => setTimeout(resolve, 60));
    const t0 = performance.now();
    const task = await api('POST', `/api/project/${projectId}/tasks`, { template_id: templateId });
    r.post.push(performance.now() - t0);
    const [ts, tl] = await Promise.all([subscribed.firstLine(task.id), legacy.firstLine(task.id)]);
    if (task.id !== nextId || ts === null) r.missed += 1;
    else r.sub.push(ts - t0);
    if (tl !== null) r.legacy.push(tl - t0);
    nextId = task.id + 1;
    // Let it finish so every run starts with a free slot.
    await waitFinished(api, projectId, task.id, 5);
  }
  subscribed.ws.close();
  legacy.ws.close();
  return r;
}
