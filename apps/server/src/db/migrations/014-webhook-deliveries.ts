import type { Kysely } from 'kysely';
import type { Engine } from '../db.js';
import { keyText } from './helpers.js';

/**
 * Webhook deliveries already taken, by the sender's delivery id (GitHub's X-GitHub-Delivery,
 * Bitbucket's X-Request-UUID), so a repeat starts nothing. In the database rather than in memory
 * so the check holds across server nodes; the primary key makes the insert itself the check.
 *
 * Also `task.runner_reported`: 1 once the runner that ran a task reported its final status. A task
 * the console rejected is final before its runner has wound down; this tells the runner protocol
 * whether that runner may still send its last lines and its final report (once).
 */
export async function up(db: Kysely<unknown>, engine: Engine): Promise<void> {
  await db.schema
    .createTable('webhook_delivery')
    .addColumn('integration_id', 'integer', (c) => c.notNull().references('integration.id').onDelete('cascade'))
    // DELIVERY_ID_MAX characters at most.
    .addColumn('delivery_id', keyText(engine, 200), (c) => c.notNull())
    .addColumn('received', keyText(engine, 64), (c) => c.notNull())
    .addPrimaryKeyConstraint('webhook_delivery_pk', ['integration_id', 'delivery_id'])
    .execute();
  // Old rows are purged by age.
  await db.schema.createIndex('webhook_delivery_received_idx').on('webhook_delivery').column('received').execute();

  await db.schema
    .alterTable('task')
    .addColumn('runner_reported', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}
