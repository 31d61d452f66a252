// What a person waits for after pressing Run: in Chromium, on a template's page of the built
// console (served by the built server, a child process; the console from WEB_DIST or
// apps/web/dist), the page's Run opens the New task dialog and its Run is clicked; measured from
// that click (the event's time in the page) to the task's first log line showing in the log
// dialog (the next painted frame after it appeared): the log's first line (the server's "Task #N
// started") and the line the template's script prints at once (after the server's checkout). Per
// run also when the server stored each (their time stamps, from the click), and the requests to
// `…/tasks/last` from that click until the task's final status shows plus 1 s. RUNS (default 10)
// runs: median and p90; the server's RSS. Target: median ≤ 250 ms. SQLite by default; DB=pg for a
// fresh PostgreSQL database (dropped afterwards).
// Builds nothing: run after `npm run build`:  node bench/click-to-first-line.mjs   (RUNS=…, DB=…, WEB_DIST=…, CHROMIUM=…)
/* global document, window, requestAnimationFrame, MutationObserver, Element -- code run in the page by page.evaluate */
import { chromium } from 'playwright-core';
import { bashTemplate, benchDb, load, median } from './common.mjs';
import { startConsoleServer } from './console-server.mjs';

const RUNS = Number(process.env.RUNS ?? 10);
const TARGET_MS = 250;
const LINE = 'first line from gantry';

const database = await benchDb();
let server;
let browser;
let rss;
let peak;
const results = [];
try {
  server = await startConsoleServer(database.env);
  const { base, api } = server;
  const { projectId, templateId } = await bashTemplate(api, `echo "${LINE}"\n`);

  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  const page = await browser.newPage({ viewport: { width: 1366, height: 860 } });
  await page.goto(`${base}/auth/login`);
  await page.getByLabel('Username or email').fill('bench');
  await page.getByLabel('Password', { exact: true }).fill('bench-pass');
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.waitForURL((u) => !u.pathname.startsWith('/auth'));
  let lastRequests = [];
  page.on('request', (r) => {
    if (new URL(r.url()).pathname.endsWith('/tasks/last')) lastRequests.push(performance.now());
  });
  await page.goto(`${base}/project/${projectId}/templates/${templateId}/tasks`);
  const run = page.getByRole('main').getByRole('button', { name: 'Run', exact: true }).first();
  await run.waitFor();

  // Watch, in the page, for the submit click and for the line appearing in the log dialog.
  await page.evaluate((line) => {
    window.__bench = { click: null, first: null, own: null };
    document.addEventListener(
      'click',
      (e) => {
        if (e.target instanceof Element && e.target.closest('[role="dialog"] button[type="submit"]'))
          window.__bench.click ??= e.timeStamp;
      },
      { capture: true },
    );
    // The first line (whatever it says: the server's "Task #N started") and the script's own line,
    // each in the DOM, then on screen at the next painted frame.
    const mark = (key) => {
      const at = performance.now();
      window.__bench[key] = { dom: at, paint: null };
      requestAnimationFrame(() => (window.__bench[key].paint = performance.now()));
    };
    const seen = () => {
      if (window.__bench.click === null) return;
      const texts = [...document.querySelectorAll('[role="dialog"] [data-testid="task-log"] .log-text')].map(
        (e) => e.textContent ?? '',
      );
      if (!window.__bench.first && texts.some((t) => t !== '')) mark('first');
      if (!window.__bench.own && texts.includes(line)) mark('own');
    };
    new MutationObserver(seen).observe(document.body, { subtree: true, childList: true, characterData: true });
  }, LINE);

  for (let i = 0; i < RUNS; i++) {
    await page.evaluate(() => (window.__bench = { click: null, first: null, own: null }));
    await run.click();
    const submit = page.getByRole('dialog').getByRole('button', { name: 'Run', exact: true });
    await submit.waitFor();
    lastRequests = [];
    const t0 = performance.now();
    await submit.click();
    const timing = await page
      .waitForFunction(() => window.__bench.own?.paint && window.__bench.first?.paint && window.__bench, null, {
        timeout: 30_000,
        polling: 'raf',
      })
      .then((h) => h.jsonValue());
    await page
      .getByRole('dialog')
      .getByTestId('task-status')
      .and(page.locator('[data-status="success"]'))
      .waitFor({ timeout: 30_000 });
    await page.waitForTimeout(1000);
    // The server's own times for those lines (its clock is this machine's), from the click.
    const taskId = Number(new URL(page.url()).searchParams.get('t'));
    const origin = await page.evaluate(() => performance.timeOrigin);
    const out = await api('GET', `/api/project/${projectId}/tasks/${taskId}/output?from_seq=1&limit=100`);
    const stored = (line) => Date.parse(line.time) - (origin + timing.click);
    results.push({
      first: timing.first.paint - timing.click,
      own: timing.own.paint - timing.click,
      serverFirst: stored(out.lines[0]),
      serverOwn: stored(out.lines.find((l) => l.output === LINE)),
      lastRequests: lastRequests.filter((at) => at >= t0).length,
    });
    await page.getByRole('dialog').getByRole('button', { name: 'Close' }).click();
    await page.getByRole('dialog').waitFor({ state: 'detached' });
  }
  rss = server.rssMb();
  peak = server.peakRssMb();
} finally {
  await browser?.close();
  await server?.close();
  await database.drop();
}

const stats = (key) => {
  const v = results.map((r) => r[key]).sort((a, b) => a - b);
  return { median: median(v), p90: v[Math.min(v.length - 1, Math.ceil(v.length * 0.9) - 1)] };
};
const [first, own, serverFirst, serverOwn] = ['first', 'own', 'serverFirst', 'serverOwn'].map(stats);
const counts = results.map((r) => r.lastRequests);
const ok = first.median <= TARGET_MS;
const ms = (n) => `${Math.round(n)} ms`;
console.log(
  `click Run → first log line shown (${database.label}): median ${ms(first.median)}, p90 ${ms(first.p90)} (target median ≤ ${TARGET_MS} ms; the server stored it at ${ms(serverFirst.median)}); ` +
    `the script's own line: median ${ms(own.median)}, p90 ${ms(own.p90)} (stored at ${ms(serverOwn.median)}), over ${RUNS} runs; ` +
    `tasks/last requests per run ${Math.min(...counts)}–${Math.max(...counts)}; server RSS ${rss.toFixed(0)} MB (peak ${peak.toFixed(0)} MB) [${load()}]${ok ? '' : ' — MISSED'}`,
);
if (!ok) process.exitCode = 1;
