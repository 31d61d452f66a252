import { setImmediate as nextTurn } from 'node:timers/promises';
import { SqliteAdapter, sql, type Kysely } from 'kysely';
import type { Database } from './types.js';

/** Per SQLite handle: its own auto-checkpoint setting (read once), and the large writes running now. */
const holds = new WeakMap<Kysely<Database>, { pages: number; running: number }>();

/**
 * Runs `work` (one large write transaction) with SQLite's automatic WAL checkpoint held back, then
 * checkpoints on a later turn of the event loop. SQLite checkpoints inside the COMMIT that takes
 * the log past `wal_autocheckpoint` pages: after a transaction of many megabytes that copy, on the
 * connection's only thread, made one stall of the commit and the checkpoint together (about twice
 * either). Apart, other requests are answered between the two. Writes that overlap share the hold;
 * the last to finish checkpoints and puts the setting back. Other engines: `work` as it is.
 */
export async function withDeferredCheckpoint<T>(db: Kysely<Database>, work: () => Promise<T>): Promise<T> {
  if (!(db.getExecutor().adapter instanceof SqliteAdapter)) return work();
  let hold = holds.get(db);
  if (!hold) {
    const { rows } = await sql<{ wal_autocheckpoint: number }>`PRAGMA wal_autocheckpoint`.execute(db);
    // Read before any hold: the handle's own setting (another caller may have read it meanwhile).
    hold = holds.get(db) ?? { pages: Math.trunc(rows[0]?.wal_autocheckpoint ?? 1000), running: 0 };
    holds.set(db, hold);
  }
  hold.running += 1;
  if (hold.running === 1) await sql`PRAGMA wal_autocheckpoint = 0`.execute(db);
  try {
    return await work();
  } finally {
    hold.running -= 1;
    if (hold.running === 0) {
      await nextTurn();
      // The work is done (committed or not): a checkpoint that fails is SQLite's to retry later.
      await sql`PRAGMA wal_checkpoint(PASSIVE)`.execute(db).catch(() => undefined);
      // A write that started meanwhile holds the checkpoint back again: it puts the setting back.
      if (hold.running === 0) await sql.raw(`PRAGMA wal_autocheckpoint = ${hold.pages}`).execute(db);
    }
  }
}
