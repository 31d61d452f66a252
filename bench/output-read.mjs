// Reading a finished 1,000,000-line task's log (`seq 1 1000000`), on SQLite and on PostgreSQL:
// - the first page, GET …/output?from_seq=1 (1,000 lines): median of RUNS calls, target ≤ 50 ms;
// - the last page, GET …/output?tail=1: median of RUNS calls (for the record, same target);
// - the whole log as text, GET …/raw_output (streamed): lines/s, median of 3, target ≥ 1,000,000/s;
// - the whole log as Semaphore's JSON array, GET …/output without parameters: time, for the record.
// Times are to the last byte of the answer, as a client sees them; the two whole-log answers are
// read by curl (another process, so the client's work does not slow the in-process server).
// On PostgreSQL the pages are timed right after the task (as a console opening the log would) and
// again after an ANALYZE of task_output (what autovacuum does, later). The server's RSS over the reads.
// Run after `npm run build`: node bench/output-read.mjs   (DB=sqlite or DB=pg for one engine only; LINES=…, RUNS=…)
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { bashTemplate, benchDb, fmt, load, median, rssSampler, startBenchServer, waitFinished } from './common.mjs';

const LINES = Number(process.env.LINES ?? 1_000_000);
const RUNS = Number(process.env.RUNS ?? 20);
const engines = process.env.DB ? [process.env.DB] : ['sqlite', 'pg'];
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'gantry-bench-read-'));
let failed = false;

/** GET by curl into a file: { ms (curl's time_total), bytes, file }. */
async function curl(url, cookie, name) {
  const file = path.join(tmp, name);
  const { stdout } = await promisify(execFile)('curl', ['-sS', '--fail', '-H', `cookie: ${cookie}`, '-o', file, '-w', '%{time_total} %{size_download}', url]);
  const [seconds, bytes] = stdout.trim().split(' ').map(Number);
  return { ms: seconds * 1000, bytes, file };
}

for (const engine of engines) {
  const database = await benchDb(engine);
  let server;
  try {
    server = await startBenchServer(database.env);
    const { base, cookie, api } = server;
    const { projectId, templateId } = await bashTemplate(api, `seq 1 ${LINES}\n`);
    const task = await api('POST', `/api/project/${projectId}/tasks`, { template_id: templateId });
    const done = await waitFinished(api, projectId, task.id);
    const url = `/api/project/${projectId}/tasks/${task.id}/output`;
    // The server's memory over the reads (the legacy whole array is the one that holds a lot).
    const rss = rssSampler(20);
    /** Milliseconds to the last byte, and the body. */
    const get = async (path) => {
      const t0 = performance.now();
      const res = await fetch(base + path, { headers: { cookie } });
      const text = await res.text();
      if (res.status !== 200) throw new Error(`${path}: ${res.status} ${text}`);
      return { ms: performance.now() - t0, text };
    };
    const timed = async (path, runs) => {
      const times = [];
      let text = '';
      await get(path); // warm-up (prepared statements, caches)
      for (let i = 0; i < runs; i++) ({ ms: times[i], text } = await get(path));
      return { ms: median(times), max: Math.max(...times), body: JSON.parse(text) };
    };
    const first = await timed(`${url}?from_seq=1`, RUNS);
    const tail = await timed(`${url}?tail=1`, RUNS);
    let analyzed = '';
    if (engine === 'pg') {
      const { default: pg } = await import('pg');
      const client = new pg.Client({ connectionString: database.env.GANTRY_DB_URL });
      await client.connect();
      await client.query('ANALYZE task_output');
      await client.end();
      const [f, t] = [await timed(`${url}?from_seq=1`, RUNS), await timed(`${url}?tail=1`, RUNS)];
      analyzed = `; after ANALYZE task_output: first page ${f.ms.toFixed(1)} ms, tail ${t.ms.toFixed(1)} ms`;
    }
    const raws = [];
    for (let i = 0; i < 3; i++) raws.push(await curl(`${base}${url.replace(/output$/, 'raw_output')}`, cookie, `raw-${i}.log`));
    const raw = raws.sort((a, b) => a.ms - b.ms)[1];
    const text = fs.readFileSync(raw.file, 'utf8').split('\n');
    text.pop(); // after the last newline
    const numbers = text.filter((l) => /^\d+$/.test(l));
    const rawComplete = numbers.length === LINES && numbers.every((l, i) => Number(l) === i + 1);
    const whole = await curl(`${base}${url}`, cookie, 'whole.json');
    const mem = rss.stop();
    const wholeLines = JSON.parse(fs.readFileSync(whole.file, 'utf8')).length;

    const rawRate = (text.length / raw.ms) * 1000;
    const okFirst = first.ms <= 50 && first.body.lines.length === 1000 && first.body.lines[0].seq === 1;
    const okTail = tail.ms <= 50 && tail.body.lines.at(-1)?.seq === tail.body.last_seq;
    const okRaw = rawRate >= 1_000_000 && rawComplete;
    if (!(okFirst && okTail && okRaw) || done.status !== 'success') failed = true;
    console.log(
      `output read (${engine === 'pg' ? 'PostgreSQL' : 'SQLite'}, ${fmt(LINES)}-line task): first page ?from_seq=1 median ${first.ms.toFixed(1)} ms (max ${first.max.toFixed(1)}), ` +
        `?tail=1 median ${tail.ms.toFixed(1)} ms (max ${tail.max.toFixed(1)}) (target ≤ 50 ms)${analyzed}; ` +
        `raw_output ${fmt(text.length)} lines, ${(raw.bytes / 1024 / 1024).toFixed(1)} MB in ${raw.ms.toFixed(0)} ms = ${fmt(rawRate)} lines/s (target ≥ 1,000,000)${rawComplete ? '' : ' NOT ALL LINES'}; ` +
        `legacy whole array ${fmt(wholeLines)} lines, ${(whole.bytes / 1024 / 1024).toFixed(1)} MB in ${whole.ms.toFixed(0)} ms; server RSS ${mem.baselineMb.toFixed(0)} MB +${mem.growthMb.toFixed(0)} MB peak over the reads [${load()}]` +
        `${okFirst && okTail && okRaw ? '' : ' — MISSED'}`,
    );
  } finally {
    await server?.close();
    await database.drop();
  }
}
fs.rmSync(tmp, { recursive: true, force: true });
if (failed) process.exitCode = 1;
