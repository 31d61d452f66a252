import fs from 'node:fs';
import type SQLite from 'better-sqlite3';
import { sql, type Kysely } from 'kysely';
import { markDbFailure } from './db-errors.js';
import type { Database } from './types.js';

/** Below this many free bytes on the database's disk, SQLite's "disk I/O error" means a full disk. */
export const MIN_FREE_BYTES = 1024 * 1024;
/** What a probe writes: enough fresh pages that a database with no room left refuses it. */
const PROBE_BYTES = 64 * 1024;

class Rollback extends Error {}

/** Free bytes on the file system holding `dir` for this process (root may use the reserved blocks). */
export function freeBytes(dir: string): number {
  const s = fs.statfsSync(dir);
  return (process.getuid?.() === 0 ? s.bfree : s.bavail) * s.bsize;
}

/**
 * SQLite: a table and 64 KiB written in a transaction that is rolled back. Synchronous on the
 * one connection, so no other statement lands inside it; inside a transaction Kysely has open it
 * is a savepoint, rolled back alone. SQLite writes a transaction's pages out only at its commit,
 * so a full disk (not a page limit) is seen by the disk's free space instead.
 */
export function sqliteSpaceProbe(database: SQLite.Database, dir: string | null): () => Promise<void> {
  const write = database.transaction(() => {
    database.exec('CREATE TABLE gantry_space_probe (x BLOB)');
    database.prepare('INSERT INTO gantry_space_probe VALUES (randomblob(?))').run(PROBE_BYTES);
    throw new Rollback();
  });
  return async () => {
    if (dir && freeBytes(dir) < MIN_FREE_BYTES) {
      const err = new Error('no room left on the database disk');
      markDbFailure(err, 'full');
      throw err;
    }
    try {
      write();
    } catch (e) {
      if (!(e instanceof Rollback)) throw e;
    }
  };
}

/**
 * PostgreSQL: 64 KiB of random (incompressible) bytes into a table created and dropped by a
 * rolled-back transaction; growing its files needs room on the disk. The name is this process's
 * own, so two nodes probing at once do not wait on each other.
 */
export function postgresSpaceProbe(db: Kysely<Database>): () => Promise<void> {
  const table = sql.id(`gantry_space_probe_${process.pid}`);
  return async () => {
    await db
      .transaction()
      .execute(async (trx) => {
        await sql`CREATE TABLE ${table} (x bytea)`.execute(trx);
        await sql`INSERT INTO ${table} SELECT decode(string_agg(md5(random()::text), ''), 'hex') FROM generate_series(1, ${PROBE_BYTES / 16})`.execute(trx);
        throw new Rollback();
      })
      .catch((e: unknown) => {
        if (!(e instanceof Rollback)) throw e;
      });
  };
}

/**
 * MySQL/MariaDB: 64 KiB into a temporary InnoDB table (DDL there commits, a temporary table does
 * not), on one connection, dropped again; its tablespace grows in the data folder.
 */
export function mysqlSpaceProbe(db: Kysely<Database>): () => Promise<void> {
  return async () => {
    await db.connection().execute(async (c) => {
      await sql`CREATE TEMPORARY TABLE gantry_space_probe (x LONGBLOB) ENGINE=InnoDB`.execute(c);
      try {
        await sql`INSERT INTO gantry_space_probe VALUES (REPEAT(MD5(RAND()), ${PROBE_BYTES / 32}))`.execute(c);
      } finally {
        await sql`DROP TEMPORARY TABLE IF EXISTS gantry_space_probe`.execute(c);
      }
    });
  };
}
