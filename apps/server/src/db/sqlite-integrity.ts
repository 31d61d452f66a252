import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { sqliteFile } from '../config/data-dir.js';

/** Files from this size on get a line before the check, so a slower start-up says why it waits. */
const LARGE_FILE_BYTES = 64 * 1024 * 1024;

export interface SqliteCheckOptions {
  dbUrl: string;
  dataDir: string;
  /** Start-up lines for the operator (the logger does not exist yet). */
  say?(line: string): void;
}

/**
 * Before the server opens its SQLite database: refuses (throws, with what to do) a file that is
 * not a database or fails `PRAGMA quick_check`, and an empty one (0 bytes, or no tables) where the
 * data folder shows an existing installation (its `secret.key` or `node.id`), which SQLite would
 * otherwise silently start afresh over. A missing file, or an empty one in an unused data folder,
 * is a fresh install.
 * quick_check reads the whole file: about a second per few hundred MB, said on large files.
 */
export function checkSqliteBeforeStart(o: SqliteCheckOptions): void {
  const file = sqliteFile(o.dbUrl);
  if (!file || !fs.existsSync(file)) return;
  const size = fs.statSync(file).size;
  const say = o.say ?? ((line: string) => process.stdout.write(`${line}\n`));
  const large = size >= LARGE_FILE_BYTES;
  if (large) say(`Checking the database ${file} (${Math.round(size / 1024 / 1024)} MB) with PRAGMA quick_check: a few seconds on a file this size`);
  const started = Date.now();
  const cut = cutShort(file, size);
  const { problem, tables } = cut === null ? inspect(file) : { problem: cut, tables: 0 };
  if (problem !== null) {
    throw new Error(
      `The database ${file} is damaged (${problem}). Gantry does not start on a damaged database: ` +
        `stop it, restore this file from a backup (remove ${path.basename(file)}-wal and ${path.basename(file)}-shm beside it, if any, before putting the backup in place) and start again.`,
    );
  }
  // What a server leaves in its data folder on its first start (the key only when none is given by GANTRY_SECRET_KEY).
  const marker = ['secret.key', 'node.id'].map((f) => path.join(o.dataDir, f)).find((f) => fs.existsSync(f));
  if (tables === 0 && marker) {
    throw new Error(
      `The database ${file} is empty (${size === 0 ? '0 bytes' : 'no tables'}), but ${marker} shows an existing installation: ` +
        'Gantry does not start a new, empty database in its place. Restore the database from a backup; ' +
        `to start afresh on purpose, move ${path.basename(file)}, secret.key and node.id out of ${o.dataDir}.`,
    );
  }
  if (large) say(`Database check passed in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

/**
 * A file SQLite itself never leaves: not whole pages, or fewer pages than its header counts
 * (only when no write-ahead log beside it holds the rest). quick_check passes such a file when
 * the missing tail was free pages, but whatever cut it short may have cut more.
 */
function cutShort(file: string, size: number): string | null {
  if (size < 100) return null;
  const header = Buffer.alloc(100);
  const fd = fs.openSync(file, 'r');
  try {
    fs.readSync(fd, header, 0, 100, 0);
  } finally {
    fs.closeSync(fd);
  }
  if (header.toString('latin1', 0, 16) !== 'SQLite format 3\0') return null;
  const raw = header.readUInt16BE(16);
  const pageSize = raw === 1 ? 65536 : raw;
  if (pageSize < 512 || (pageSize & (pageSize - 1)) !== 0) return null;
  if (size % pageSize !== 0) return `the file is ${size} bytes, not a whole number of ${pageSize}-byte pages`;
  // The header's page count is valid when its change counter matches "version valid for".
  const counted = header.readUInt32BE(28);
  const valid = counted > 0 && header.readUInt32BE(24) === header.readUInt32BE(92);
  const wal = `${file}-wal`;
  const walHolds = fs.existsSync(wal) && fs.statSync(wal).size > 0;
  if (valid && !walHolds && counted > size / pageSize) return `the file holds ${size / pageSize} of the ${counted} pages its header counts`;
  return null;
}

/** quick_check's first findings (null when it is fine) and the number of tables. */
function inspect(file: string): { problem: string | null; tables: number } {
  let database: SQLite.Database | undefined;
  try {
    database = new SQLite(file, { fileMustExist: true });
    const rows = database.pragma('quick_check(3)') as Array<{ quick_check: string }>;
    const found = rows.map((r) => r.quick_check).join('\n');
    if (found !== 'ok') return { problem: `PRAGMA quick_check: ${summary(found)}`, tables: 0 };
    const { n } = database.prepare("SELECT count(*) AS n FROM sqlite_schema WHERE type = 'table'").get() as { n: number };
    return { problem: null, tables: n };
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    // "file is not a database", "database disk image is malformed": SQLite's own words.
    if (typeof code === 'string' && (code === 'SQLITE_NOTADB' || code.startsWith('SQLITE_CORRUPT'))) return { problem: `SQLite: ${(err as Error).message}`, tables: 0 };
    throw new Error(`Cannot open the database ${file}: ${(err as Error).message}`);
  } finally {
    database?.close();
  }
}

function summary(found: string): string {
  const lines = found.split('\n').filter((l) => l && !l.startsWith('***'));
  return lines.slice(0, 2).join('; ') + (lines.length > 2 ? '; ...' : '');
}
