import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SERVER_BIN, SERVER_NODE, assertServerBuilt, freePort, startNode, stopNode } from '../test/server-process.js';
import { checkSqliteBeforeStart } from './sqlite-integrity.js';

const roots: string[] = [];
function folder(): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'gantry-integrity-'));
  roots.push(root);
  const dataDir = path.join(root, 'data');
  fs.mkdirSync(dataDir, { mode: 0o700 });
  return dataDir;
}
afterAll(() => {
  for (const r of roots) fs.rmSync(r, { recursive: true, force: true });
});

/** Runs the built server on a data folder until it exits (it must refuse: a start is killed after 15 s). */
async function refusedStart(dataDir: string): Promise<{ status: number | null; output: string }> {
  const port = await freePort();
  const r = spawnSync(SERVER_NODE, [SERVER_BIN], {
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      GANTRY_DATA_DIR: dataDir,
      GANTRY_PORT: String(port),
      GANTRY_HOST: '127.0.0.1',
      GANTRY_LOG_LEVEL: 'warn',
      GANTRY_WEB_DIST: '/nonexistent',
    },
    encoding: 'utf8',
    timeout: 15_000,
  });
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}

describe('start-up on a damaged or emptied SQLite database (real server)', () => {
  let installed: string;

  beforeAll(async () => {
    assertServerBuilt();
    // A fresh data folder starts, and leaves a real database (and its key) behind.
    installed = folder();
    const node = await startNode('fresh', { url: `sqlite:${path.join(installed, 'gantry.sqlite')}` }, randomBytes(32).toString('base64'), {}, installed);
    await stopNode(node);
    expect(fs.statSync(path.join(installed, 'gantry.sqlite')).size).toBeGreaterThan(10_000);
  }, 60_000);

  it('refuses a database whose pages quick_check finds broken', async () => {
    const dataDir = folder();
    const file = path.join(dataDir, 'gantry.sqlite');
    fs.copyFileSync(path.join(installed, 'gantry.sqlite'), file);
    // Every page after the first (the schema's root) overwritten: whole pages, a header intact.
    const size = fs.statSync(file).size;
    const fd = fs.openSync(file, 'r+');
    fs.writeSync(fd, Buffer.alloc(size - 4096, 0xa5), 0, size - 4096, 4096);
    fs.closeSync(fd);
    const r = await refusedStart(dataDir);
    expect(r.status).toBe(1);
    expect(r.output).toMatch(new RegExp(`The database ${file} is damaged \\((PRAGMA quick_check|SQLite): `));
  });

  it('refuses a database cut short by 1,000 bytes, naming the file and the way out', async () => {
    const file = path.join(installed, 'gantry.sqlite');
    fs.truncateSync(file, fs.statSync(file).size - 1000);
    const r = await refusedStart(installed);
    expect(r.status).toBe(1);
    expect(r.output).toContain(`The database ${file} is damaged (the file is `);
    expect(r.output).toContain('restore this file from a backup');
    expect(r.output).not.toContain('is serving');
  });

  it('refuses an empty database beside an existing secret.key', async () => {
    const dataDir = folder();
    const file = path.join(dataDir, 'gantry.sqlite');
    fs.writeFileSync(file, '');
    fs.writeFileSync(path.join(dataDir, 'secret.key'), `${randomBytes(32).toString('base64')}\n`, { mode: 0o600 });
    const r = await refusedStart(dataDir);
    expect(r.status).toBe(1);
    expect(r.output).toContain(`The database ${file} is empty (0 bytes), but ${path.join(dataDir, 'secret.key')} shows an existing installation`);
    expect(r.output).toContain('Restore the database from a backup');
    // Nothing was written meanwhile: the file is as it was.
    expect(fs.statSync(file).size).toBe(0);
  });
});

describe('checkSqliteBeforeStart', () => {
  it('passes a missing file, and an empty one in an unused folder (a fresh install)', () => {
    const dataDir = folder();
    const dbUrl = `sqlite:${path.join(dataDir, 'gantry.sqlite')}`;
    expect(() => checkSqliteBeforeStart({ dbUrl, dataDir })).not.toThrow();
    fs.writeFileSync(path.join(dataDir, 'gantry.sqlite'), '');
    expect(() => checkSqliteBeforeStart({ dbUrl, dataDir })).not.toThrow();
  });

  it('refuses a database without tables once the folder holds a node.id, and a file that is no database', () => {
    const dataDir = folder();
    const file = path.join(dataDir, 'gantry.sqlite');
    const d = new SQLite(file);
    d.pragma('user_version = 1');
    d.close();
    fs.writeFileSync(path.join(dataDir, 'node.id'), 'abc\n');
    expect(() => checkSqliteBeforeStart({ dbUrl: `sqlite:${file}`, dataDir })).toThrow(/is empty \(no tables\), but .*node\.id shows an existing installation/);
    fs.writeFileSync(file, 'not a database '.repeat(100));
    expect(() => checkSqliteBeforeStart({ dbUrl: `sqlite:${file}`, dataDir })).toThrow(/is damaged \(SQLite: file is not a database\)/);
  });

  it('says so before checking a large file', () => {
    const dataDir = folder();
    const file = path.join(dataDir, 'gantry.sqlite');
    const d = new SQLite(file);
    d.exec('CREATE TABLE t (x BLOB)');
    d.prepare('INSERT INTO t VALUES (zeroblob(?))').run(65 * 1024 * 1024);
    d.close();
    const lines: string[] = [];
    checkSqliteBeforeStart({ dbUrl: `sqlite:${file}`, dataDir, say: (l) => lines.push(l) });
    expect(lines[0]).toMatch(/^Checking the database .* \(65 MB\) with PRAGMA quick_check: a few seconds on a file this size$/);
    expect(lines[1]).toMatch(/^Database check passed in \d+\.\d s$/);
  });
});
