import type { Kysely } from 'kysely';
import type { Engine } from '../db.js';
import { keyText } from './helpers.js';

/**
 * Webhook deliveries already taken, by the SHA-256 (hex) of their content: for GitHub and
 * Bitbucket the raw body, for a timestamped hmac delivery `<timestamp>.<body>`. The delivery id
 * header is not signed, so a captured delivery replayed under another id (or none) is recognised
 * by this instead. Like `webhook_delivery`: per integration, purged by age, the primary key makes
 * the insert itself the check on every node.
 */
export async function up(db: Kysely<unknown>, engine: Engine): Promise<void> {
  await db.schema
    .createTable('webhook_delivery_body')
    .addColumn('integration_id', 'integer', (c) => c.notNull().references('integration.id').onDelete('cascade'))
    .addColumn('body_sha256', keyText(engine, 64), (c) => c.notNull())
    .addColumn('received', keyText(engine, 64), (c) => c.notNull())
    .addPrimaryKeyConstraint('webhook_delivery_body_pk', ['integration_id', 'body_sha256'])
    .execute();
  await db.schema
    .createIndex('webhook_delivery_body_received_idx')
    .on('webhook_delivery_body')
    .column('received')
    .execute();
}
