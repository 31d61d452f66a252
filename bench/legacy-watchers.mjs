// Legacy consoles watching the task logs over the WebSocket, as Semaphore's console does: /api/ws
// without `logs=subscribe`, so every task's lines arrive as per-line `log` frames. In a process of
// its own (forked by log-ingest-legacy.mjs) so the server's memory is measured alone; not run by hand.
//   env: BENCH_BASE (http://127.0.0.1:port), BENCH_COOKIE (name=value), BENCH_SOCKETS (count)
//   parent -> child: { type: 'task', taskId }  the task to account for
//                    { type: 'report' }        answer once every socket saw the task finish
//   child -> parent: { type: 'ready' }, { type: 'report', sockets: [...], cpuMs }
// A socket checks its lines by their seq: in order, none twice, and any it was not sent told as a
// `gap`.
//
// Five sockets of a million frames each would cost a `ws` client seconds of CPU on the machine the
// server runs on: this one reads the frames itself (after a plain HTTP upgrade) and the seq of a
// `log` frame from its bytes. That the frames are well formed for a real client is the server's
// tests' business (ws-frames.test.ts, legacy-socket.int.test.ts).
import { randomBytes } from 'node:crypto';
import http from 'node:http';

const FINISHED = ['success', 'error', 'stopped', 'rejected'];
const WINDOW_MS = 50;
/** After the final update, how long to keep listening for a late `gap` message. */
const SETTLE_MS = 1000;
const OP_TEXT = 0x1;
const OP_CLOSE = 0x8;

const base = new URL(process.env.BENCH_BASE);
const cookie = process.env.BENCH_COOKIE;
const count = Number(process.env.BENCH_SOCKETS ?? 5);
let taskId = null;

const LOG_PREFIX = Buffer.from('{"type":"log",');
const TASK_KEY = Buffer.from('"task_id":');

/** The digits of `buf` from `at` on, as a number. */
function digits(buf, at) {
  let n = 0;
  for (let c = buf[at]; c >= 48 && c <= 57; c = buf[++at]) n = n * 10 + c - 48;
  return n;
}

/** The fields of a `log` frame this process checks, read from its bytes (ids first, seq last). */
function logFrame(buf) {
  let colon = buf.length - 1;
  while (buf[colon] !== 58) colon--;
  return { type: 'log', task_id: digits(buf, buf.indexOf(TASK_KEY) + TASK_KEY.length), seq: digits(buf, colon + 1) };
}

/** Calls `onFrame(opcode, payload)` for each whole frame of what the server sends (unmasked, unfragmented). */
function frameReader(onFrame) {
  let pending = Buffer.alloc(0);
  return (chunk) => {
    const buf = pending.length ? Buffer.concat([pending, chunk]) : chunk;
    let at = 0;
    for (;;) {
      if (buf.length - at < 2) break;
      let len = buf[at + 1] & 0x7f;
      let head = 2;
      if (len === 126) {
        if (buf.length - at < 4) break;
        len = buf.readUInt16BE(at + 2);
        head = 4;
      } else if (len === 127) {
        if (buf.length - at < 10) break;
        len = buf.readUInt32BE(at + 2) * 2 ** 32 + buf.readUInt32BE(at + 6);
        head = 10;
      }
      if (buf.length - at < head + len) break;
      onFrame(buf[at] & 0x0f, buf.subarray(at + head, at + head + len));
      at += head + len;
    }
    pending = buf.subarray(at);
  };
}

function watcher(index) {
  const s = {
    index,
    frames: 0,
    bytes: 0,
    lines: 0,
    gaps: 0,
    gapLines: 0,
    firstSeq: null,
    nextSeq: null,
    holes: 0,
    overlaps: 0,
    deliveries: [],
    finalStatus: null,
    closed: null,
    early: [],
  };
  const range = (from, to) => {
    if (s.firstSeq === null) s.firstSeq = s.nextSeq = from;
    if (from > s.nextSeq) s.holes += from - s.nextSeq;
    if (from < s.nextSeq) s.overlaps += s.nextSeq - from;
    s.nextSeq = Math.max(s.nextSeq, to + 1);
  };
  const take = (m) => {
    if (m.type === 'log') {
      s.lines += 1;
      range(m.seq, m.seq);
    } else if (m.type === 'gap') {
      s.gaps += 1;
      s.gapLines += m.to_seq - m.from_seq + 1;
      range(m.from_seq, m.to_seq);
    } else if (m.type === 'update' && FINISHED.includes(m.status) && !s.finalStatus) {
      s.finalStatus = m.status;
      maybeReport();
    }
  };
  const read = frameReader((opcode, payload) => {
    if (opcode === OP_CLOSE) {
      s.closed = payload.length >= 2 ? payload.readUInt16BE(0) : 1005;
      return;
    }
    if (opcode !== OP_TEXT) return;
    s.frames += 1;
    s.bytes += payload.length;
    const m = payload.subarray(0, LOG_PREFIX.length).equals(LOG_PREFIX)
      ? logFrame(payload)
      : JSON.parse(payload.toString());
    // Frames that came before the parent named the task are kept, then accounted for.
    if (taskId === null) s.early.push(m);
    else if (m.task_id === taskId) take(m);
  });
  const named = () => {
    for (const m of s.early.splice(0)) if (m.task_id === taskId) take(m);
  };
  const open = new Promise((resolve, reject) => {
    const req = http.request({
      host: base.hostname,
      port: base.port,
      path: '/api/ws',
      headers: {
        connection: 'Upgrade',
        upgrade: 'websocket',
        'sec-websocket-version': '13',
        'sec-websocket-key': randomBytes(16).toString('base64'),
        cookie,
      },
    });
    req.on('upgrade', (_res, socket, head) => {
      const data = (chunk) => {
        s.deliveries.push(performance.now());
        read(chunk);
      };
      if (head.length) data(head);
      socket.on('data', data);
      socket.on('close', () => (s.closed ??= 1006));
      resolve();
    });
    req.on('response', (res) => reject(new Error(`upgrade refused: ${res.statusCode}`)));
    req.on('error', reject);
    req.end();
  });
  return { s, named, open };
}

const watchers = Array.from({ length: count }, (_, i) => watcher(i));
await Promise.all(watchers.map((w) => w.open));
process.send({ type: 'ready' });

let wanted = false;
let reported = false;
function maybeReport() {
  if (!wanted || reported || !watchers.every((w) => w.s.finalStatus || w.s.closed !== null)) return;
  reported = true;
  const { user, system } = process.cpuUsage();
  setTimeout(
    () => process.send({ type: 'report', sockets: watchers.map((w) => summary(w.s)), cpuMs: (user + system) / 1000 }),
    SETTLE_MS,
  );
}

/** What one socket saw; `maxPer50ms`: most deliveries within any 50 ms (receiver's clock). */
function summary(s) {
  const t = s.deliveries;
  let most = 0;
  for (let i = 0, j = 0; i < t.length; i++) {
    while (t[i] - t[j] >= WINDOW_MS) j++;
    most = Math.max(most, i - j + 1);
  }
  const rest = { ...s, deliveries: t.length, early: undefined };
  return {
    ...rest,
    lastSeq: s.nextSeq === null ? null : s.nextSeq - 1,
    spanMs: t.length ? t[t.length - 1] - t[0] : 0,
    maxPer50ms: most,
  };
}

process.on('message', (m) => {
  if (m.type === 'task') {
    taskId = m.taskId;
    for (const w of watchers) w.named();
  }
  if (m.type === 'report') {
    wanted = true;
    maybeReport();
  }
});
process.on('disconnect', () => process.exit(0));
