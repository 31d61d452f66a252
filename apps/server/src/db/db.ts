import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import { restrictFiles } from '../config/data-dir.js';
import type { Database } from './types.js';

export type Engine = 'sqlite' | 'postgres';

export interface Db {
  db: Kysely<Database>;
  engine: Engine;
  /** The SQLite connection itself, for the one hot path Kysely's async wrapper slows (log ingest). */
  sqlite?: SQLite.Database;
  /** The PostgreSQL pool Kysely runs on, for the same hot path (log ingest by `COPY`). */
  pgPool?: pg.Pool;
  close(): Promise<void>;
}

/** Opens SQLite (`sqlite:<file>`, WAL mode, foreign keys on) or PostgreSQL (`postgres://...`). */
export function createDb(url: string): Db {
  if (url.startsWith('sqlite:')) {
    const file = url.slice('sqlite:'.length);
    if (file !== ':memory:') fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true, mode: 0o700 });
    const database = new SQLite(file);
    // Only the server's user reads the database; SQLite gives the -wal/-shm files the same mode.
    if (file !== ':memory:') restrictFiles([file, `${file}-wal`, `${file}-shm`]);
    database.pragma('journal_mode = WAL');
    database.pragma('foreign_keys = ON');
    database.pragma('busy_timeout = 5000');
    const db = new Kysely<Database>({ dialect: new SqliteDialect({ database }) });
    return { db, engine: 'sqlite', sqlite: database, close: () => db.destroy() };
  }
  // Counts and sums come back as numbers, not strings: int8 fits a JS number for our values.
  pg.types.setTypeParser(20, (v) => Number(v));
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return { db, engine: 'postgres', pgPool: pool, close: () => db.destroy() };
}

