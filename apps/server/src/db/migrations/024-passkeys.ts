import type { Kysely } from 'kysely';
import type { Engine } from '../db.js';
import { idColumn, idType, keyText } from './helpers.js';

/**
 * Passkeys (WebAuthn):
 * - `user_passkey`: a user's registered credentials: the credential id (base64url, unique), its
 *   COSE public key (base64url), the signature counter (a clone guard: it must grow), the
 *   transports the browser reported (JSON list), the name the user gave, when made and last used;
 * - `passkey_challenge`: challenges handed out and not yet answered, kept in the database so that
 *   any node of a cluster can check the answer. Stored by the hash of the challenge, for one
 *   purpose, bound to a user and/or a session or browser cookie (`binding`, a hash), spent once.
 */
export async function up(db: Kysely<unknown>, engine: Engine): Promise<void> {
  await db.schema
    .createTable('user_passkey')
    .addColumn('id', idType(engine), idColumn(engine))
    .addColumn('user_id', 'integer', (c) => c.notNull().references('user.id').onDelete('cascade'))
    .addColumn('credential_id', keyText(engine, 512), (c) => c.notNull().unique())
    .addColumn('public_key', 'text', (c) => c.notNull())
    .addColumn('counter', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('transports', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('created', 'text', (c) => c.notNull())
    .addColumn('last_used', 'text')
    .execute();
  await db.schema.createIndex('user_passkey_user_idx').on('user_passkey').column('user_id').execute();

  await db.schema
    .createTable('passkey_challenge')
    .addColumn('id', keyText(engine, 64), (c) => c.primaryKey())
    .addColumn('purpose', 'text', (c) => c.notNull())
    .addColumn('user_id', 'integer', (c) => c.references('user.id').onDelete('cascade'))
    .addColumn('binding', 'text')
    .addColumn('expires', keyText(engine, 40), (c) => c.notNull())
    .execute();
  await db.schema.createIndex('passkey_challenge_expires_idx').on('passkey_challenge').column('expires').execute();
}
