// `npm test`: builds everything, checks lint and types, runs the unit/integration suite (Vitest,
// SQLite always, PostgreSQL when GANTRY_TEST_PG_URL is set) and the browser suite (Playwright on
// Debian's Chromium), then prints one closing line: `N passed, N failed`.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const tmp = path.join(root, '.tmp');
fs.mkdirSync(tmp, { recursive: true });
let passed = 0;
let failed = 0;

function step(name, cmd, args, env = {}) {
  process.stdout.write(`\n=== ${name}: ${cmd} ${args.join(' ')}\n`);
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } });
  return r.status === 0;
}

function readJson(file) {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return null;
  }
}

/** A check that is not a test suite counts as one test: it passes or fails as a whole. */
function check(name, cmd, args) {
  if (step(name, cmd, args)) passed += 1;
  else {
    failed += 1;
    process.stdout.write(`FAILED: ${name}\n`);
  }
}

const onlyUnit = process.argv.includes('--unit');
const skipBuild = process.argv.includes('--no-build');

if (!skipBuild && !step('build', 'npm', ['run', 'build', '--silent'])) {
  finish(1, 'build failed');
}
check('typecheck', 'npm', ['run', 'typecheck', '--silent']);
check('lint', 'npm', ['run', 'lint', '--silent']);

const vitestOut = path.join(tmp, 'vitest.json');
fs.rmSync(vitestOut, { force: true });
const vitestOk = step('unit and integration tests', 'npx', ['vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile=${vitestOut}`]);
const v = readJson(vitestOut);
if (v) {
  passed += v.numPassedTests;
  failed += v.numFailedTests + (vitestOk || v.numFailedTests > 0 ? 0 : 1);
} else failed += 1;

if (!onlyUnit) {
  const pwOut = path.join(tmp, 'playwright.json');
  fs.rmSync(pwOut, { force: true });
  const pwOk = step('browser tests', 'npx', ['playwright', 'test', '-c', 'apps/web/playwright.config.ts', '--reporter=list,json'], {
    PLAYWRIGHT_JSON_OUTPUT_NAME: pwOut,
  });
  const p = readJson(pwOut);
  if (p?.stats) {
    passed += p.stats.expected + p.stats.flaky;
    failed += p.stats.unexpected + (pwOk || p.stats.unexpected > 0 ? 0 : 1);
  } else failed += 1;
}

finish(failed > 0 ? 1 : 0);

function finish(code, why) {
  if (why) {
    process.stdout.write(`\n${why}\n`);
    failed += 1;
  }
  const line = `${passed} passed, ${failed} failed`;
  fs.writeFileSync(path.join(tmp, 'summary.txt'), line + '\n');
  process.stdout.write(`\n${line}\n`);
  process.exit(code);
}
