import type { Kysely } from 'kysely';
import type { Engine } from '../db.js';
import { idColumn, idType, keyText } from './helpers.js';

/**
 * External sign-in identities and the master key's check value.
 *
 * An external user is bound to the provider's (issuer, subject): usernames and emails are
 * claims any provider can send, the subject is the provider's own stable id for the person.
 * One binding per user and provider, so a bound account is never linked to a second subject.
 *
 * `master_key_check` holds one row: a known text sealed with the master key at the first start,
 * opened at every start so a changed key is refused before anything is sealed with it.
 */
export async function up(db: Kysely<unknown>, engine: Engine): Promise<void> {
  await db.schema
    .createTable('external_identity')
    .addColumn('id', idType(engine), idColumn(engine))
    // One unique key over the three: at most 768 characters on MySQL. OIDC caps `sub` at 255.
    .addColumn('provider', keyText(engine, 64), (c) => c.notNull())
    .addColumn('issuer', keyText(engine, 255), (c) => c.notNull())
    .addColumn('subject', keyText(engine, 255), (c) => c.notNull())
    .addColumn('user_id', 'integer', (c) => c.notNull().references('user.id').onDelete('cascade'))
    .addColumn('created', 'text', (c) => c.notNull())
    .addUniqueConstraint('external_identity_subject_unique', ['provider', 'issuer', 'subject'])
    .addUniqueConstraint('external_identity_user_unique', ['provider', 'user_id'])
    .execute();
  await db.schema.createIndex('external_identity_user_idx').on('external_identity').column('user_id').execute();

  await db.schema
    .createTable('master_key_check')
    // Always 1: the table has at most one row.
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('sealed', 'text', (c) => c.notNull())
    .addColumn('created', 'text', (c) => c.notNull())
    .execute();
}
