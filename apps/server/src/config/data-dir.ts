import fs from 'node:fs';
import path from 'node:path';
import type { Config } from './config.js';

/**
 * Start-up: the data and task folders exist and only the server's user can enter them (0700,
 * also when an older version created them looser); the key, node id and SQLite files are 0600.
 */
export function secureDataFolders(config: Pick<Config, 'dataDir' | 'taskDir' | 'dbUrl'>): void {
  for (const dir of [config.dataDir, config.taskDir]) {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    fs.chmodSync(dir, 0o700);
  }
  const files = [path.join(config.dataDir, 'secret.key'), path.join(config.dataDir, 'node.id')];
  const sqlite = sqliteFile(config.dbUrl);
  if (sqlite) files.push(sqlite, `${sqlite}-wal`, `${sqlite}-shm`);
  restrictFiles(files);
}

/** The database file of a `sqlite:` URL (null for PostgreSQL or an in-memory database). */
export function sqliteFile(dbUrl: string): string | null {
  if (!dbUrl.startsWith('sqlite:')) return null;
  const file = dbUrl.slice('sqlite:'.length);
  return file === ':memory:' ? null : path.resolve(file);
}

/** Makes the files that exist readable by this user only (0600). */
export function restrictFiles(files: string[]): void {
  for (const f of files) {
    try {
      fs.chmodSync(f, 0o600);
    } catch {
      // Not there (yet): created later under the server's 077 umask.
    }
  }
}
