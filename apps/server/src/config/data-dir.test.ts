import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from './config.js';
import { secureDataFolders, sqliteFile } from './data-dir.js';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'gantry-datadir-'));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));
const mode = (p: string) => fs.statSync(p).mode & 0o777;

describe('secureDataFolders', () => {
  it('creates the data and task folders 0700 and tightens what an older start left open', () => {
    const dataDir = path.join(root, 'data');
    fs.mkdirSync(dataDir, { mode: 0o755 });
    fs.chmodSync(dataDir, 0o755);
    for (const f of ['secret.key', 'node.id', 'gantry.sqlite', 'gantry.sqlite-wal', 'other.txt'])
      fs.writeFileSync(path.join(dataDir, f), 'x', { mode: 0o644 });
    const config = loadConfig({ GANTRY_DATA_DIR: dataDir });
    expect(config.taskDir).toBe(path.join(root, 'data-tasks'));
    secureDataFolders(config);
    expect(mode(dataDir)).toBe(0o700);
    expect(mode(config.taskDir)).toBe(0o700);
    for (const f of ['secret.key', 'node.id', 'gantry.sqlite', 'gantry.sqlite-wal'])
      expect(mode(path.join(dataDir, f)), f).toBe(0o600);
    expect(mode(path.join(dataDir, 'other.txt'))).toBe(0o644);
  });

  it('knows the SQLite file of a URL', () => {
    expect(sqliteFile('sqlite:/srv/g.sqlite')).toBe('/srv/g.sqlite');
    expect(sqliteFile('sqlite::memory:')).toBeNull();
    expect(sqliteFile('postgres://u@h/db')).toBeNull();
  });
});
