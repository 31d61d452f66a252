// Lighthouse's mobile performance audit (its defaults: a Moto G Power-sized screen, simulated slow
// 4G and 4× CPU slowdown, cold cache) of the sign-in page and a project's dashboard, served by the
// built server (a child process on a temp data dir; the console from WEB_DIST or apps/web/dist).
// The dashboard is signed in: the session cookie goes with every request (extraHeaders). Per page,
// the median run of RUNS (default 3): performance score, LCP, FCP, TBT and the bytes transferred;
// then the server's RSS. Target: score ≥ 90 on both. SQLite by default; DB=pg for a fresh PostgreSQL
// database (dropped afterwards).
// Builds nothing: run after `npm run build`:  node bench/lighthouse.mjs   (RUNS=…, DB=…, WEB_DIST=…, CHROMIUM=…)
import * as chromeLauncher from 'chrome-launcher';
import lighthouse from 'lighthouse';
import { bashTemplate, benchDb, load, median, waitFinished } from './common.mjs';
import { startConsoleServer } from './console-server.mjs';

const RUNS = Number(process.env.RUNS ?? 3);
const TARGET = 90;

/** One audit of `url`; answers the figures of the median-scored run. */
async function audit(url, headers) {
  const runs = [];
  for (let i = 0; i < RUNS; i++) {
    // Lighthouse now and then fails to record a load (NO_NAVSTART, NO_FCP): that run is done again.
    let lhr;
    for (let attempt = 1; ; attempt++) {
      ({ lhr } = await lighthouse(url, {
        port: chrome.port,
        logLevel: 'error',
        onlyCategories: ['performance'],
        extraHeaders: headers,
      }));
      if (!lhr.runtimeError) break;
      if (attempt === 3) throw new Error(`${url}: ${lhr.runtimeError.code} ${lhr.runtimeError.message}`);
    }
    // LH_REPORT=<folder> keeps each run's full report, to see what the figures are made of.
    if (process.env.LH_REPORT) (await import('node:fs')).writeFileSync(`${process.env.LH_REPORT}/${new URL(url).pathname.split('/').pop()}-${i}.json`, JSON.stringify(lhr));
    const a = (id) => lhr.audits[id]?.numericValue ?? NaN;
    runs.push({
      finalUrl: lhr.finalDisplayedUrl,
      score: Math.round((lhr.categories.performance.score ?? 0) * 100),
      lcp: a('largest-contentful-paint'),
      fcp: a('first-contentful-paint'),
      tbt: a('total-blocking-time'),
      bytes: a('total-byte-weight'),
      requests: lhr.audits['network-requests']?.details?.items?.length ?? 0,
      // Lighthouse's own measure of the host CPU (higher is faster): the 4× slowdown is applied to
      // it, so the same build scores lower on a slower machine.
      cpu: lhr.environment?.benchmarkIndex ?? NaN,
    });
  }
  const mid = median(runs.map((r) => r.score));
  return { ...runs.find((r) => r.score === mid), scores: runs.map((r) => r.score) };
}

const database = await benchDb();
let server;
let chrome;
let signIn;
let dashboard;
let rss;
let peak;
try {
  server = await startConsoleServer(database.env);
  const { base, cookie, api } = server;
  // A dashboard with something on it: a template and a few finished tasks.
  const { projectId, templateId } = await bashTemplate(api, 'echo hello\n');
  for (let i = 0; i < 3; i++)
    await waitFinished(api, projectId, (await api('POST', `/api/project/${projectId}/tasks`, { template_id: templateId })).id);

  chrome = await chromeLauncher.launch({
    chromePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    chromeFlags: [
      '--headless=new',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-dev-shm-usage',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  signIn = await audit(`${base}/auth/login`, {});
  dashboard = await audit(`${base}/project/${projectId}/history`, { cookie });
  if (!new URL(dashboard.finalUrl).pathname.startsWith(`/project/${projectId}/`))
    throw new Error(`the dashboard audit ended on ${dashboard.finalUrl} (not signed in?)`);
  rss = server.rssMb();
  peak = server.peakRssMb();
} finally {
  await chrome?.kill();
  await server?.close();
  await database.drop();
}

const s = (n) => (n / 1000).toFixed(1);
const line = (name, r) =>
  `${name} ${r.score} [runs ${r.scores.join('/')}] (CPU index ${Math.round(r.cpu)}, LCP ${s(r.lcp)} s, FCP ${s(r.fcp)} s, TBT ${Math.round(r.tbt)} ms, ${Math.round(r.bytes / 1024)} KB in ${r.requests} requests)`;
const ok = signIn.score >= TARGET && dashboard.score >= TARGET;
console.log(
  `Lighthouse mobile performance (${database.label}): ${line('sign-in', signIn)}; ${line('dashboard', dashboard)} (target ≥ ${TARGET}); server RSS ${rss.toFixed(0)} MB (peak ${peak.toFixed(0)} MB) [${load()}]${ok ? '' : ' — MISSED'}`,
);
if (!ok) process.exitCode = 1;
