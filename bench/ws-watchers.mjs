// Consoles watching a task's log over the WebSocket, in a process of their own so that the server's
// memory is measured alone. Started by ingest-run.mjs with child_process.fork; not run by hand.
//   env: BENCH_BASE (http://127.0.0.1:port), BENCH_COOKIE (name=value), BENCH_SOCKETS (count)
//   parent -> child: { type: 'task', taskId }  subscribe every socket to that task
//                    { type: 'report' }        answer once every socket saw the task finish
//   child -> parent: { type: 'ready' }, { type: 'report', sockets: [...] }
// Each socket connects in subscribe mode (?logs=subscribe) and subscribes to the task as soon as it
// knows its id: from the parent, or from the task's first `update` frame, whichever comes first
// (lines stored before that are what a console reads over HTTP when it opens a log).
import WebSocket from 'ws';

const FINISHED = ['success', 'error', 'stopped', 'rejected'];
const WINDOW_MS = 50;
/** After the final update, how long to keep listening for a late `gap` message. */
const SETTLE_MS = 1000;

const base = process.env.BENCH_BASE;
const cookie = process.env.BENCH_COOKIE;
const count = Number(process.env.BENCH_SOCKETS ?? 5);

function watcher(index) {
  const s = {
    index,
    taskId: null,
    messages: 0, // `logs` messages
    lines: 0, // lines in them
    bytes: 0, // every frame
    frames: 0,
    gaps: 0,
    gapLines: 0,
    firstSeq: null, // the first seq this socket got or was told of (earlier lines: read over HTTP)
    nextSeq: null, // contiguity check: the seq the next logs/gap message must start at
    holes: 0, // lines skipped without a gap message
    overlaps: 0, // lines sent twice or out of order
    arrivals: [], // performance.now() of each `logs` message
    finalStatus: null,
    finishedAt: null,
    closed: null,
  };
  const ws = new WebSocket(`${base.replace(/^http/, 'ws')}/api/ws?logs=subscribe`, { headers: { cookie } });
  const subscribe = (taskId) => {
    if (s.taskId !== null) return;
    s.taskId = taskId;
    ws.send(JSON.stringify({ type: 'subscribe', task_id: taskId }));
  };
  const range = (from, to) => {
    if (s.firstSeq === null) {
      s.firstSeq = from;
      s.nextSeq = from;
    }
    if (from > s.nextSeq) s.holes += from - s.nextSeq;
    if (from < s.nextSeq) s.overlaps += s.nextSeq - from;
    s.nextSeq = Math.max(s.nextSeq, to + 1);
  };
  ws.on('message', (data) => {
    s.frames += 1;
    s.bytes += data.length;
    const m = JSON.parse(data.toString());
    if (m.type === 'update') {
      subscribe(m.task_id);
      if (m.task_id === s.taskId && FINISHED.includes(m.status) && !s.finalStatus) {
        s.finalStatus = m.status;
        s.finishedAt = performance.now();
        maybeReport();
      }
    } else if (m.type === 'logs' && m.task_id === s.taskId) {
      s.messages += 1;
      s.lines += m.lines.length;
      s.arrivals.push(performance.now());
      range(m.from_seq, m.from_seq + m.lines.length - 1);
    } else if (m.type === 'gap' && m.task_id === s.taskId) {
      s.gaps += 1;
      s.gapLines += m.to_seq - m.from_seq + 1;
      range(m.from_seq, m.to_seq);
    }
  });
  ws.on('close', (code) => (s.closed = code));
  return { s, ws, subscribe, open: new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject)) };
}

const watchers = Array.from({ length: count }, (_, i) => watcher(i));
await Promise.all(watchers.map((w) => w.open));
process.send({ type: 'ready' });

let wanted = false;
let reported = false;
function maybeReport() {
  if (!wanted || reported || !watchers.every((w) => w.s.finalStatus || w.s.closed !== null)) return;
  reported = true;
  setTimeout(() => process.send({ type: 'report', sockets: watchers.map((w) => summary(w.s)) }), SETTLE_MS);
}

/** What one socket saw; `maxPer50ms`: most `logs` messages that arrived within any 50 ms (receiver's clock). */
function summary(s) {
  const t = s.arrivals;
  let maxPerWindow = 0;
  for (let i = 0, j = 0; i < t.length; i++) {
    while (t[i] - t[j] >= WINDOW_MS) j++;
    maxPerWindow = Math.max(maxPerWindow, i - j + 1);
  }
  let minGapMs = Infinity;
  for (let i = 1; i < t.length; i++) minGapMs = Math.min(minGapMs, t[i] - t[i - 1]);
  const spanMs = t.length ? t[t.length - 1] - t[0] : 0;
  // The arrival times stay here: the report carries their summary only.
  const rest = { ...s };
  delete rest.arrivals;
  return { ...rest, lastSeq: s.nextSeq === null ? null : s.nextSeq - 1, spanMs, maxPer50ms: maxPerWindow, minGapMs: t.length > 1 ? minGapMs : null };
}

process.on('message', (m) => {
  if (m.type === 'task') for (const w of watchers) w.subscribe(m.taskId);
  if (m.type === 'report') {
    wanted = true;
    maybeReport();
  }
  if (m.type === 'exit') {
    for (const w of watchers) w.ws.close();
    process.exit(0);
  }
});
process.on('disconnect', () => process.exit(0));
