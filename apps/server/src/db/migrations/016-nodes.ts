import type { Kysely } from 'kysely';

/**
 * The server nodes sharing this database: each writes its heartbeat every few seconds. A node
 * whose heartbeat is older than GANTRY_NODE_TIMEOUT_SECONDS is dead: the live node that deletes
 * its row (one guarded delete, so only one does) fails the tasks it was running. Times are ISO
 * text from each node's clock (nodes are expected to keep their clocks in step, as with NTP).
 * The id is a bounded varchar so every engine can index it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('node')
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('address', 'varchar(255)', (c) => c.notNull())
    .addColumn('version', 'varchar(64)', (c) => c.notNull())
    .addColumn('started', 'varchar(32)', (c) => c.notNull())
    .addColumn('last_heartbeat', 'varchar(32)', (c) => c.notNull())
    .execute();
}
