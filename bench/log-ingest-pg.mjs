// Log ingest on PostgreSQL with 1 console watching: a task prints 1,000,000 lines into a fresh
// database on the local PostgreSQL (PG_URL, default postgres://postgres@127.0.0.1:5432; dropped
// afterwards) while one socket in another process subscribes to it. Measures lines/s from POST to
// all stored (target ≥ 150,000), the socket's messages and lines, and the server's RSS growth.
// Run after `npm run build`: node bench/log-ingest-pg.mjs   (LINES=…, WATCHERS=…)
import { fmt, load } from './common.mjs';
import { ingestRun, sendsLine, socketLine } from './ingest-run.mjs';

const LINES = Number(process.env.LINES ?? 1_000_000);
const WATCHERS = Number(process.env.WATCHERS ?? 1);
const r = await ingestRun({ lines: LINES, watchers: WATCHERS, db: 'pg' });
const sockets = r.sockets.map((s) => socketLine(s, r.lastSeq));
const sends = sendsLine(r.serverSends);
const okStored = r.stored.numbers === LINES && r.stored.inOrder;
const ok = r.linesPerSec >= 150_000 && okStored && sockets.every((s) => s.complete && s.rate) && sends.ok;
console.log(
  `log ingest (PostgreSQL, ${WATCHERS} watching): ${fmt(LINES)} lines in ${r.seconds.toFixed(2)} s = ${fmt(r.linesPerSec)} lines/s (target ≥ 150,000); ` +
    `stored ${fmt(r.stored.numbers)} of ${fmt(LINES)}${okStored ? '' : ' NOT ALL'}; server RSS +${r.mem.growthMb.toFixed(0)} MB peak; ` +
    `sockets: ${sockets.filter((s) => s.rate).length}/${WATCHERS} ≤ 1 msg per 50 ms over the run (${sends.ok ? 'and' : 'but NOT'} in every 50 ms window server side), ${sockets.filter((s) => s.complete).length}/${WATCHERS} every line [${load()}]${ok ? '' : ' — MISSED'}`,
);
if (process.env.VERBOSE !== '0') {
  console.log(`  ${sends.text}`);
  for (const s of sockets) console.log(`  ${s.text}`);
}
if (!ok) process.exitCode = 1;
