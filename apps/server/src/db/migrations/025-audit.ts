import { sql, type Kysely } from 'kysely';

/**
 * The audit trail: one row per change, sign-in or task control, hash-chained. Ids are given by
 * the appender (head_id + 1 under the chain row's lock), never by the database, so each entry's
 * hash covers its id and a gap shows. No foreign keys: an entry outlives its actor, project and
 * object. `audit_chain` holds one row (id 1): the chain's head, the hash of the last entry that
 * retention pruned (the anchor the remaining chain starts from), and when pruning is next due.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('audit_entry')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('time', 'varchar(32)', (c) => c.notNull())
    .addColumn('actor_id', 'integer')
    .addColumn('actor_login', 'text')
    .addColumn('auth_kind', 'varchar(16)', (c) => c.notNull())
    .addColumn('ip', 'text')
    .addColumn('user_agent', 'text')
    .addColumn('request_id', 'text')
    .addColumn('project_id', 'integer')
    .addColumn('object_type', 'varchar(32)', (c) => c.notNull())
    .addColumn('object_id', 'text')
    .addColumn('action', 'varchar(32)', (c) => c.notNull())
    .addColumn('before', 'text')
    .addColumn('after', 'text')
    .addColumn('prev_hash', 'varchar(64)', (c) => c.notNull())
    .addColumn('hash', 'varchar(64)', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('audit_entry_time').on('audit_entry').column('time').execute();
  await db.schema.createIndex('audit_entry_project').on('audit_entry').columns(['project_id', 'id']).execute();
  await db.schema.createIndex('audit_entry_actor').on('audit_entry').columns(['actor_id', 'id']).execute();
  await db.schema
    .createTable('audit_chain')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('head_id', 'integer', (c) => c.notNull())
    .addColumn('head_hash', 'varchar(64)', (c) => c.notNull())
    .addColumn('anchor_id', 'integer', (c) => c.notNull())
    .addColumn('anchor_hash', 'varchar(64)', (c) => c.notNull())
    .addColumn('prune_due', 'varchar(32)', (c) => c.notNull())
    .execute();
  const genesis = '0'.repeat(64);
  await sql`insert into audit_chain (id, head_id, head_hash, anchor_id, anchor_hash, prune_due) values (1, 0, ${genesis}, 0, ${genesis}, ${''})`.execute(
    db,
  );
}
