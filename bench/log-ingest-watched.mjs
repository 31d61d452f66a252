// Log ingest with 5 consoles watching: a task prints 1,000,000 lines on SQLite while 5 sockets in
// another process (ws-watchers.mjs) subscribe to it over /api/ws?logs=subscribe. Measures lines/s
// from POST to all stored (target ≥ 300,000), per socket the `logs` messages against the task's
// duration (target ≤ 1 per 50 ms per task per socket), bytes, and whether it got every line (lines
// received + lines told as gaps), and the server's RSS growth, peak over the run sampled every
// 20 ms in the server's process (target ≤ 150 MB).
// Run after `npm run build`: node bench/log-ingest-watched.mjs   (LINES=…, WATCHERS=…, DB=pg)
import { fmt, load } from './common.mjs';
import { ingestRun, sendsLine, socketLine } from './ingest-run.mjs';

const LINES = Number(process.env.LINES ?? 1_000_000);
const WATCHERS = Number(process.env.WATCHERS ?? 5);
const DB = process.env.DB ?? 'sqlite';
const r = await ingestRun({ lines: LINES, watchers: WATCHERS, db: DB });
const sockets = r.sockets.map((s) => socketLine(s, r.lastSeq));
const sends = sendsLine(r.serverSends);
const okRate = r.linesPerSec >= 300_000;
const okMem = r.mem.growthMb <= 150;
const okStored = r.stored.numbers === LINES && r.stored.inOrder;
const okSockets = sockets.every((s) => s.complete && s.rate) && sends.ok;
console.log(
  `log ingest (${DB === 'pg' ? 'PostgreSQL' : 'SQLite'}, ${WATCHERS} watching): ${fmt(LINES)} lines in ${r.seconds.toFixed(2)} s = ${fmt(r.linesPerSec)} lines/s (target ≥ 300,000); ` +
    `server RSS +${r.mem.growthMb.toFixed(0)} MB peak (target ≤ 150 MB); stored ${fmt(r.stored.numbers)} of ${fmt(LINES)}${okStored ? '' : ' NOT ALL'}; ` +
    `sockets: ${sockets.filter((s) => s.rate).length}/${WATCHERS} ≤ 1 msg per 50 ms over the run (${sends.ok ? 'and' : 'but NOT'} in every 50 ms window server side), ${sockets.filter((s) => s.complete).length}/${WATCHERS} every line [${load()}]` +
    `${okRate && okMem && okStored && okSockets ? '' : ' — MISSED'}`,
);
if (process.env.VERBOSE !== '0') {
  console.log(`  ${sends.text}`);
  for (const s of sockets) console.log(`  ${s.text}`);
}
if (!(okRate && okMem && okStored && okSockets)) process.exitCode = 1;
