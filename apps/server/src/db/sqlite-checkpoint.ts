import { setImmediate as nextTurn } from 'node:timers/promises';
import { SqliteAdapter, sql, type Kysely } from 'kysely';
import type { Database } from './types.js';

/** Large writes running now, per SQLite handle, and the auto-checkpoint setting they replaced. */
const deferring = new WeakMap<Kysely<Database>, { count: number; pages: number }>();

/**
 * Runs `work` (one large write transaction) with SQLite's automatic WAL checkpoint held back, then
 * checkpoints on a later turn of the event loop. SQLite checkpoints inside the COMMIT that takes
 * the log past `wal_autocheckpoint` pages: after a transaction of many megabytes that copy, on the
 * connection's only thread, made one stall of the commit and the checkpoint together (about twice
 * either). Apart, other requests are answered between the two. Several at once share one hold;
 * the last to finish checkpoints and restores the setting. Other engines: `work` as it is.
 */
export async function withDeferredCheckpoint<T>(db: Kysely<Database>, work: () => Promise<T>): Promise<T> {
  if (!(db.getExecutor().adapter instanceof SqliteAdapter)) return work();
  let hold = deferring.get(db);
  if (!hold) {
    const { rows } = await sql<{ wal_autocheckpoint: number }>`PRAGMA wal_autocheckpoint`.execute(db);
    // Another large write may have started while the setting was read: join it.
    hold = deferring.get(db) ?? { count: 0, pages: rows[0]?.wal_autocheckpoint ?? 1000 };
    deferring.set(db, hold);
  }
  hold.count += 1;
  if (hold.count === 1) await sql`PRAGMA wal_autocheckpoint = 0`.execute(db);
  try {
    return await work();
  } finally {
    hold.count -= 1;
    if (hold.count === 0) {
      deferring.delete(db);
      await nextTurn();
      await sql`PRAGMA wal_checkpoint(PASSIVE)`.execute(db);
      await sql.raw(`PRAGMA wal_autocheckpoint = ${Math.trunc(hold.pages)}`).execute(db);
    }
  }
}
