import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { CompiledQuery, Kysely, MysqlDialect, PostgresDialect, SqliteDialect } from 'kysely';
import { createPool as createMysqlPool } from 'mysql2';
import pg from 'pg';
import { restrictFiles } from '../config/data-dir.js';
import { describeDbError, markDbFailure } from './db-errors.js';
import { DbHealth } from './db-health.js';
import { ObservedDialect } from './observed-dialect.js';
import { NoReturningPlugin } from './portable.js';
import { cachingStatements } from './sqlite-statement-cache.js';
import { MIN_FREE_BYTES, freeBytes, mysqlSpaceProbe, postgresSpaceProbe, sqliteSpaceProbe } from './space-probe.js';
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
  /** Whether writes fail for lack of room (readiness asks; fast paths that bypass Kysely report theirs). */
  health: DbHealth;
  close(): Promise<void>;
}

export interface DbOptions {
  /** How long opening a connection may take before the query fails as `unavailable` (default 5 s). */
  connectTimeoutMs?: number;
  /** Where a failure no caller sees (an idle pooled connection's) is told; never given a secret. */
  warn?(message: string): void;
}

/** Long enough for a busy database across a network, short enough that a request never hangs on a dead one. */
const CONNECT_TIMEOUT_MS = 5_000;

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
 * MySQL/MariaDB (`mysql://...`, `mariadb://...`). A database that goes away never ends the
 * process: pooled connections that fail while idle are dropped and told to `warn`, and queries
 * fail (fast, within the connect timeout) until it is back.
 */
export function createDb(url: string, options: DbOptions = {}): Db {
  const connectTimeoutMs = options.connectTimeoutMs ?? CONNECT_TIMEOUT_MS;
  const warn = options.warn ?? ((message: string) => process.stderr.write(`${message}\n`));
  // Set once the engine's probe exists; every failed query is reported to it.
  let health: DbHealth | undefined;
  const observe = (dialect: ConstructorParameters<typeof ObservedDialect>[0], onError: (err: unknown) => void = () => undefined) =>
    new ObservedDialect(dialect, (err) => {
      onError(err);
      health?.failed(err);
    });
  if (url.startsWith('sqlite:')) {
    const file = url.slice('sqlite:'.length);
    if (file !== ':memory:') fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true, mode: 0o700 });
    const database = new SQLite(file);
    // Only the server's user reads the database; SQLite gives the -wal/-shm files the same mode.
    if (file !== ':memory:') restrictFiles([file, `${file}-wal`, `${file}-shm`]);
    database.pragma('journal_mode = WAL');
    database.pragma('foreign_keys = ON');
    database.pragma('busy_timeout = 5000');
    const dir = file === ':memory:' ? null : path.dirname(path.resolve(file));
    // SQLite says "disk I/O error" when the disk itself has no room left: that is a full database.
    const onError = (err: unknown) => {
      const code = (err as { code?: unknown }).code;
      if (dir && typeof code === 'string' && code.startsWith('SQLITE_IOERR') && freeBytes(dir) < MIN_FREE_BYTES) markDbFailure(err, 'full');
    };
    const db = new Kysely<Database>({ dialect: observe(new SqliteDialect({ database: cachingStatements(database) }), onError) });
    health = new DbHealth(sqliteSpaceProbe(database, dir));
    return { db, engine: 'sqlite', sqlite: database, health, close: () => db.destroy() };
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
      connectTimeout: connectTimeoutMs,
      enableKeepAlive: true,
    });
    // mysql2 drops a pooled connection that fails while idle by itself; say so, as for PostgreSQL.
    pool.on('connection', (connection) => {
      connection.on('error', (err) => warn(`database: a pooled connection failed (${describeDbError(err, url)}); the pool opens a new one when needed`));
    });
    const db = new Kysely<Database>({
      dialect: observe(
        new MysqlDialect({
          pool,
          onCreateConnection: async (connection) => {
            for (const statement of MYSQL_SESSION) await connection.executeQuery(CompiledQuery.raw(statement));
          },
        }),
      ),
      plugins: [new NoReturningPlugin()],
    });
    health = new DbHealth(mysqlSpaceProbe(db));
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
    return { db, engine: 'mysql', poolStats, health, close: () => db.destroy() };
  }
  // Counts and sums come back as numbers, not strings: int8 fits a JS number for our values.
  pg.types.setTypeParser(20, (v) => Number(v));
  const pool = new pg.Pool({ connectionString: url, max: 10, connectionTimeoutMillis: connectTimeoutMs, keepAlive: true });
  // Without a listener, an idle client's error (a restart, a failover, pg_terminate_backend) would
  // end the process; the pool has already dropped that client.
  pool.on('error', (err) => warn(`database: an idle connection failed (${describeDbError(err, url)}); the pool opens a new one when needed`));
  // A checked-out client loses the pool's listener: a socket cut mid-query (a COPY of log lines, any
  // query) is reported to its caller by the query, and must not also end the process as an 'error' event.
  pool.on('connect', (client) => client.on('error', (err) => warn(`database: a connection in use failed (${describeDbError(err, url)})`)));
  const db = new Kysely<Database>({ dialect: observe(new PostgresDialect({ pool })) });
  health = new DbHealth(postgresSpaceProbe(db));
  return { db, engine: 'postgres', pgPool: pool, poolStats: pool, health, close: () => db.destroy() };
}

