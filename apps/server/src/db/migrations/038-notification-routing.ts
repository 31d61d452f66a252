import type { Kysely } from 'kysely';
import type { Engine } from '../db.js';
import { idColumn, idType, keyText } from './helpers.js';

/**
 * Notification routing:
 * - `notification_destination`: where notifications go, of a project or global (`project_id`
 *   null, admins). `config` is the JSON of the non-secret fields; `secrets` the SecretBox-sealed
 *   JSON of the secret ones (tokens, keyed URLs, the signing secret).
 * - `notification_rule`: which events go to a destination, for the whole project or one template
 *   or schedule, with filters. `events` is a JSON list.
 * - `notification_delivery`: the persistent queue and the delivery log. `dedup_key` is unique: an
 *   event enqueued twice (two nodes, a sweep seeing a task again) is delivered once. A node claims
 *   a row by moving `claimed_until` forward in one conditional update.
 */
export async function up(db: Kysely<unknown>, engine: Engine): Promise<void> {
  await db.schema
    .createTable('notification_destination')
    .addColumn('id', idType(engine), idColumn(engine))
    .addColumn('project_id', 'integer', (c) => c.references('project.id').onDelete('cascade'))
    .addColumn('name', 'varchar(100)', (c) => c.notNull())
    .addColumn('kind', 'varchar(32)', (c) => c.notNull())
    .addColumn('config', 'text', (c) => c.notNull())
    .addColumn('secrets', 'text', (c) => c.notNull())
    .addColumn('active', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('created', 'varchar(32)', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('notification_destination_project_idx')
    .on('notification_destination')
    .columns(['project_id'])
    .execute();

  await db.schema
    .createTable('notification_rule')
    .addColumn('id', idType(engine), idColumn(engine))
    .addColumn('project_id', 'integer', (c) => c.references('project.id').onDelete('cascade'))
    .addColumn('destination_id', 'integer', (c) =>
      c.notNull().references('notification_destination.id').onDelete('cascade'),
    )
    .addColumn('events', 'text', (c) => c.notNull())
    .addColumn('template_id', 'integer', (c) => c.references('template.id').onDelete('cascade'))
    .addColumn('schedule_id', 'integer', (c) => c.references('schedule.id').onDelete('cascade'))
    .addColumn('only_schedules', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('branch', 'varchar(255)')
    .addColumn('exclude_task_runners', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('long_running_minutes', 'integer')
    .addColumn('digest_hour', 'integer')
    .addColumn('created', 'varchar(32)', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('notification_rule_project_idx')
    .on('notification_rule')
    .columns(['project_id'])
    .execute();
  await db.schema
    .createIndex('notification_rule_destination_idx')
    .on('notification_rule')
    .columns(['destination_id'])
    .execute();

  await db.schema
    .createTable('notification_delivery')
    .addColumn('id', idType(engine), idColumn(engine))
    .addColumn('destination_id', 'integer', (c) =>
      c.notNull().references('notification_destination.id').onDelete('cascade'),
    )
    .addColumn('project_id', 'integer')
    .addColumn('dedup_key', keyText(engine, 200), (c) => c.notNull().unique())
    .addColumn('event', 'varchar(32)', (c) => c.notNull())
    .addColumn('subject', 'varchar(255)', (c) => c.notNull())
    .addColumn('task_id', 'integer')
    .addColumn('template_id', 'integer')
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('status', 'varchar(16)', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('http_status', 'integer')
    .addColumn('error', 'text')
    .addColumn('created', 'varchar(32)', (c) => c.notNull())
    .addColumn('last_attempt', 'varchar(32)')
    .addColumn('next_attempt', 'varchar(32)')
    .addColumn('delivered', 'varchar(32)')
    .addColumn('claimed_by', 'varchar(64)')
    .addColumn('claimed_until', 'varchar(32)')
    .execute();
  await db.schema
    .createIndex('notification_delivery_due_idx')
    .on('notification_delivery')
    .columns(['status', 'next_attempt'])
    .execute();
  await db.schema
    .createIndex('notification_delivery_destination_idx')
    .on('notification_delivery')
    .columns(['destination_id', 'id'])
    .execute();
}
