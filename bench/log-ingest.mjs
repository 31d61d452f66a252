// Log ingest rate, nobody watching: a task prints 1,000,000 lines (`seq 1 1000000`) on SQLite;
// measures lines per second from POST to the moment every line is stored (the task's final
// status), checks over raw_output that all of them are, and the server's RSS growth (peak over the
// run, sampled every 20 ms). Target: ≥ 400,000 lines/s, all stored.
// Run after `npm run build`: node bench/log-ingest.mjs   (LINES=…, DB=pg for PostgreSQL)
import { fmt, load } from './common.mjs';
import { ingestRun } from './ingest-run.mjs';

const LINES = Number(process.env.LINES ?? 1_000_000);
const DB = process.env.DB ?? 'sqlite';
const r = await ingestRun({ lines: LINES, watchers: 0, db: DB });
const ok = r.linesPerSec >= 400_000 && r.stored.numbers === LINES && r.stored.inOrder;
console.log(
  `log ingest (${DB === 'pg' ? 'PostgreSQL' : 'SQLite'}, nobody watching): ${fmt(LINES)} lines in ${r.seconds.toFixed(2)} s = ${fmt(r.linesPerSec)} lines/s (target ≥ 400,000); ` +
    `stored ${fmt(r.stored.numbers)} of ${fmt(LINES)}${r.stored.inOrder ? ' in order' : ' NOT ALL / OUT OF ORDER'} (${r.status}, last_seq ${r.lastSeq}); ` +
    `server RSS +${r.mem.growthMb.toFixed(0)} MB (${r.mem.baselineMb.toFixed(0)} → peak ${r.mem.peakMb.toFixed(0)} MB) [${load()}]${ok ? '' : ' — MISSED'}`,
);
if (!ok) process.exitCode = 1;
