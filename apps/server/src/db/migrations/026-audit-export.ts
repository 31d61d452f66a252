import type { Kysely } from 'kysely';
import type { Engine } from '../db.js';
import { keyText } from './helpers.js';

/**
 * Audit export to a SIEM: one row per destination (`file:<node>`, `syslog`, `webhook`) holding
 * its cursor, the id of the last audit entry delivered there. Entries above it are the
 * destination's queue: they are in the audit trail already, so the queue survives a restart and
 * takes no memory. The node holding the lease (`lease_holder` until `lease_expires`, ISO text)
 * delivers a batch, then moves the cursor, so several nodes on one database export each entry
 * once. `attempts` and `last_error` describe the current run of failures (the retry backoff),
 * `not_exported` counts entries skipped (pruned before delivery, or past the pending limit).
 */
export async function up(db: Kysely<unknown>, engine: Engine): Promise<void> {
  await db.schema
    .createTable('audit_export_cursor')
    .addColumn('destination', keyText(engine, 64), (c) => c.primaryKey())
    .addColumn('target', 'text', (c) => c.notNull())
    .addColumn('last_id', 'integer', (c) => c.notNull())
    .addColumn('lease_holder', 'text')
    .addColumn('lease_expires', 'varchar(32)')
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_error', 'text')
    .addColumn('last_error_time', 'varchar(32)')
    .addColumn('last_success', 'varchar(32)')
    .addColumn('not_exported', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}
