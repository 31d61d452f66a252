import type { Kysely } from 'kysely';
import type { Engine } from '../db.js';
import { idColumn, idType } from './helpers.js';

/** Two-factor sign-in: each user's TOTP secret and recovery code; sessions waiting for the code. */
export async function up(db: Kysely<unknown>, engine: Engine): Promise<void> {
  await db.schema
    .createTable('user_totp')
    .addColumn('id', idType(engine), idColumn(engine))
    .addColumn('user_id', 'integer', (c) => c.notNull().unique().references('user.id').onDelete('cascade'))
    // Sealed with the server's SecretBox: a database leak alone does not give the codes away.
    .addColumn('secret', 'text', (c) => c.notNull())
    .addColumn('recovery_hash', 'text', (c) => c.notNull())
    // The last 30-second step whose code was accepted: a code is never accepted twice.
    .addColumn('last_step', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created', 'text', (c) => c.notNull())
    .execute();

  // Sessions opened before this migration were full sign-ins, so they stay verified.
  await db.schema
    .alterTable('session')
    .addColumn('verified', 'integer', (c) => c.notNull().defaultTo(1))
    .execute();
}
