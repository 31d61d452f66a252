import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { CompiledQuery, Kysely, MysqlDialect, PostgresDialect, SqliteDialect } from 'kysely';
import { createPool as createMysqlPool } from 'mysql2';
import pg from 'pg';
import { restrictFiles } from '../config/data-dir.js';
import { NoReturningPlugin } from './portable.js';
import type { Database } from './types.js';

export type Engine = 'sqlite' | 'postgres' | 'mysql';

export interface Db {
  db: Kysely<Database>;
  engine: Engine;
  /** The SQLite connection itself, for the one hot path Kysely's async wrapper slows (log ingest). */
  sqlite?: SQLite.Database;
  /** The PostgreSQL pool Kysely runs on, for the same hot path (log ingest by `COPY`). */
  /** A pooled engine's connection counts (PostgreSQL: the pg pool; MySQL: mysql2's), for /metrics. */
  poolStats?: { readonly totalCount: number; readonly idleCount: number; readonly waitingCount: number };
  pgPool?: pg.Pool;
  close(): Promise<void>;
}

/** A MySQL or MariaDB URL (`mysql://` or `mariadb://`). */
export function isMysqlUrl(url: string): boolean {
  return /^(mysql|mariadb):\/\//.test(url);
}

/**
 * Every MySQL/MariaDB session starts alike, whatever the server's defaults: strict (an over-long
 * value fails instead of being cut), backslash escapes on (mysql2 escapes values that way),
 * double quotes for strings only, and READ COMMITTED, the isolation PostgreSQL runs at.
 */
const MYSQL_SESSION = [
  "SET SESSION sql_mode = 'STRICT_ALL_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION'",
  'SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED',
];

/**
 * Opens SQLite (`sqlite:<file>`, WAL mode, foreign keys on), PostgreSQL (`postgres://...`) or
 * MySQL/MariaDB (`mysql://...`, `mariadb://...`).
 */
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
  if (isMysqlUrl(url)) {
    const pool = createMysqlPool({
      uri: url.replace(/^mariadb:/, 'mysql:'),
      // The connection's collation matches the tables' (see migrations/mysql-schema.ts).
      charset: 'UTF8MB4_BIN',
      // Counts are numbers (BIGINT as a number while it fits one exactly), sums too (DECIMAL).
      supportBigNumbers: true,
      decimalNumbers: true,
      // Times are ISO text in every table; no column is turned into a Date.
      dateStrings: true,
      connectionLimit: 10,
    });
    const db = new Kysely<Database>({
      dialect: new MysqlDialect({
        pool,
        onCreateConnection: async (connection) => {
          for (const statement of MYSQL_SESSION) await connection.executeQuery(CompiledQuery.raw(statement));
        },
      }),
      plugins: [new NoReturningPlugin()],
    });
    // mysql2 keeps its pool's counters in fields it has had for years but does not type.
    const inner = pool as unknown as { _allConnections?: { length: number }; _freeConnections?: { length: number }; _connectionQueue?: { length: number } };
    const poolStats = {
      get totalCount() {
        return inner._allConnections?.length ?? 0;
      },
      get idleCount() {
        return inner._freeConnections?.length ?? 0;
      },
      get waitingCount() {
        return inner._connectionQueue?.length ?? 0;
      },
    };
    return { db, engine: 'mysql', poolStats, close: () => db.destroy() };
  }
  // Counts and sums come back as numbers, not strings: int8 fits a JS number for our values.
  pg.types.setTypeParser(20, (v) => Number(v));
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return { db, engine: 'postgres', pgPool: pool, poolStats: pool, close: () => db.destroy() };
}

