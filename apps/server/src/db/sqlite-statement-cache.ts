import type SQLite from 'better-sqlite3';
import type { SqliteDatabase } from 'kysely';

/** How many distinct statements stay prepared: every query the server makes, with room for IN lists. */
const MAX_STATEMENTS = 500;

/**
 * The SQLite handle Kysely is given: the same database, with each statement prepared once and
 * kept (least recently used out first). Kysely prepares every query it runs, and preparing was
 * half of its time on SQLite (6% of the server's thread under a task flood). A kept statement is
 * re-prepared by SQLite itself after a schema change; one busy in an iteration (a streamed select)
 * is never handed out twice, a fresh one is prepared instead.
 */
export function cachingStatements(database: SQLite.Database, max = MAX_STATEMENTS): SqliteDatabase {
  const kept = new Map<string, SQLite.Statement>();
  return {
    close: () => {
      kept.clear();
      database.close();
    },
    prepare(sql: string) {
      const hit = kept.get(sql);
      if (hit && !hit.busy) {
        // Most recently used goes last, so the first one is the one to drop.
        kept.delete(sql);
        kept.set(sql, hit);
        return hit;
      }
      const stmt = database.prepare(sql);
      if (!hit) {
        kept.set(sql, stmt);
        if (kept.size > max) kept.delete(kept.keys().next().value!);
      }
      return stmt;
    },
  };
}
