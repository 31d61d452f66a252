// How late the log dialog shows a task's final status while the task floods it: a task prints
// 200,000 lines (`seq 1 200000`) with its log dialog open in Chromium (the built console served by
// the server). The task first waits, blocked on a TCP read from this bench, until the dialog shows
// it running, so every line arrives while the dialog is open. Measured per run: from the server
// knowing the final status (its `update` frame arriving on a socket of this process) to the dialog's
// status chip ([role=dialog] [data-testid=task-status], data-status) showing it, at the next frame
// painted after the change. Target: ≤ 1 s. Median and max over RUNS (default 3).
// The server runs in this process: its RSS is sampled over the runs. SQLite by default; DB=pg for a
// fresh PostgreSQL database (dropped afterwards).
// Run after `npm run build` (the console too): node bench/log-dialog-status.mjs   (LINES=…, RUNS=…, DB=…, WEB_DIST=…, CHROMIUM=…)
/* global document, window, requestAnimationFrame, MutationObserver -- code run in the page by page.evaluate */
import net from 'node:net';
import { chromium } from 'playwright-core';
import WebSocket from 'ws';
import { FINISHED, bashTemplate, benchDb, fmt, load, median, rssSampler, startBenchServer, waitFinished } from './common.mjs';
import { webDist } from './console-server.mjs';

const LINES = Number(process.env.LINES ?? 200_000);
const RUNS = Number(process.env.RUNS ?? 3);
// The console: WEB_DIST (a `vite build --outDir` elsewhere) or apps/web/dist.
const dist = webDist();

// The gate: each task connects and reads one line before printing; we write it when the dialog shows the task running.
const held = [];
const gate = net.createServer((s) => held.push(s));
await new Promise((r) => gate.listen(0, '127.0.0.1', r));
const release = () => {
  for (const s of held.splice(0)) s.end('go\n');
};

const database = await benchDb();
let server;
let ws;
let browser;
let mem;
const results = [];
try {
  server = await startBenchServer({ ...database.env, GANTRY_WEB_DIST: dist });
  const { base, cookie, api } = server;
  const { projectId, templateId } = await bashTemplate(api, `read -r _ < /dev/tcp/127.0.0.1/${gate.address().port}\nseq 1 ${LINES}\n`);

  // The server's word: update frames on a socket that subscribes to no log.
  ws = new WebSocket(`${base.replace('http', 'ws')}/api/ws?logs=subscribe`, { headers: { cookie } });
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  const finalAt = new Map();
  ws.on('message', (data) => {
    const m = JSON.parse(data.toString());
    if (m.type === 'update' && FINISHED.includes(m.status) && !finalAt.has(m.task_id)) finalAt.set(m.task_id, { at: Date.now(), status: m.status });
  });

  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const rss = rssSampler(20);
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  const page = await context.newPage();
  await page.goto(`${base}/auth/login`);
  await page.getByLabel('Username or email').fill('bench');
  await page.getByLabel('Password', { exact: true }).fill('bench-pass');
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.waitForURL((u) => !u.pathname.startsWith('/auth'));
  // Before any page script: watch for the dialog's chip turning final, and note the next painted frame.
  await context.addInitScript((finished) => {
    const seen = () => {
      const chip = document.querySelector('[role="dialog"] [data-testid="task-status"]');
      const status = chip?.getAttribute('data-status');
      if (!window.__final && status && finished.includes(status)) {
        window.__final = { status, domAt: Date.now(), paintAt: null };
        requestAnimationFrame(() => (window.__final.paintAt = Date.now()));
      }
    };
    new MutationObserver(seen).observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ['data-status'] });
  }, FINISHED);

  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    const task = await api('POST', `/api/project/${projectId}/tasks`, { template_id: templateId });
    await page.goto(`${base}/project/${projectId}/history?t=${task.id}`);
    const chip = page.locator('[role="dialog"] [data-testid="task-status"]');
    await chip.and(page.locator('[data-status="running"]')).waitFor({ timeout: 30_000 });
    const openMs = performance.now() - t0;
    release();
    const done = await waitFinished(api, projectId, task.id, 50);
    const byServer = finalAt.get(task.id) ?? { at: Date.parse(done.end), status: done.status };
    const shown = await page
      .waitForFunction(() => window.__final?.paintAt && window.__final, null, { timeout: 60_000, polling: 100 })
      .then((h) => h.jsonValue())
      .catch(() => null);
    results.push({ taskId: task.id, status: done.status, openMs, server: byServer, shown, sinceEndMs: shown ? shown.paintAt - Date.parse(done.end) : null });
  }
  mem = rss.stop();
} finally {
  await browser?.close();
  ws?.close();
  release();
  gate.close();
  await server?.close();
  await database.drop();
}

const lags = results.map((r) => (r.shown ? r.shown.paintAt - r.server.at : Infinity));
const ok = lags.every((l) => l <= 1000) && results.every((r) => r.shown?.status === r.server.status);
const each = results
  .map((r, i) => (r.shown ? `${lags[i]} ms (DOM ${r.shown.domAt - r.server.at} ms; ${r.sinceEndMs} ms after the task's end time)` : `NOT SHOWN within 60 s (server: ${r.server.status})`))
  .join(', ');
console.log(
  `log dialog (${database.label}), ${fmt(LINES)}-line task: final status shown median ${median(lags)} ms, max ${Math.max(...lags)} ms after the server's update frame ` +
    `(target ≤ 1,000 ms) over ${RUNS} runs: ${each}; dialog open and running ${(median(results.map((r) => r.openMs)) / 1000).toFixed(1)} s after POST; server RSS ${mem.baselineMb.toFixed(0)} MB +${mem.growthMb.toFixed(0)} MB peak [${load()}]${ok ? '' : ' — MISSED'}`,
);
if (!ok) process.exitCode = 1;
