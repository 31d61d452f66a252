import type { Kysely, Selectable, Transaction } from 'kysely';
import type { Database, UserTable } from '../../db/types.js';
import { insertReturningAll } from '../../db/portable.js';

/** A user with the id of their two-factor (TOTP) method, or null when they have none. */
export type UserRow = Selectable<UserTable> & { totp_id: number | null };

export interface NewUserRow {
  username: string;
  name: string;
  email: string;
  password: string | null;
  admin: boolean;
  external: boolean;
  alert: boolean;
  created: string;
}

/**
 * Signs a user out everywhere: their sessions are deleted and their API tokens expired. The
 * caller's own session (`keep`, by stored id) survives under a new id, so whoever held the old
 * cookie value is out too.
 */
export interface Revocation {
  keep?: { id: string; newId: string };
}

/** `password` is a hash, never the password itself. */
type UserPatch = Partial<{ username: string; name: string; email: string; admin: boolean; external: boolean; alert: boolean; password: string }>;

/**
 * The only SQL about users (and about their sessions and tokens where a change to the user needs
 * them: revoking them, or how recently the caller's session signed in).
 */
export class UsersRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /**
   * Every read of users goes through here, so each row says whether the user has TOTP: a
   * confirmed method only (one still waiting for its first code is not asked for at sign-in).
   */
  private users() {
    return this.db
      .selectFrom('user')
      .selectAll('user')
      .select((eb) =>
        eb
          .selectFrom('user_totp')
          .select('user_totp.id')
          .whereRef('user_totp.user_id', '=', 'user.id')
          .where('user_totp.confirmed', '=', 1)
          .as('totp_id'),
      );
  }

  list(): Promise<UserRow[]> {
    return this.users().orderBy('name').orderBy('id').execute();
  }

  findById(id: number): Promise<UserRow | undefined> {
    return this.users().where('id', '=', id).executeTakeFirst();
  }

  /** Sign-in accepts a username or an email, compared without case. */
  findByLogin(login: string): Promise<UserRow | undefined> {
    const l = login.toLowerCase();
    return this.users()
      .where((eb) => eb.or([eb(eb.fn('lower', ['username']), '=', l), eb(eb.fn('lower', ['email']), '=', l)]))
      .orderBy('id')
      .executeTakeFirst();
  }

  /** Another user holding this username or email (case-insensitive), for uniqueness checks. */
  async findClash(username: string, email: string, exceptId?: number): Promise<'username' | 'email' | null> {
    let q = this.db
      .selectFrom('user')
      .select(['username', 'email'])
      .where((eb) =>
        eb.or([
          eb(eb.fn('lower', ['username']), '=', username.toLowerCase()),
          eb(eb.fn('lower', ['email']), '=', email.toLowerCase()),
        ]),
      );
    if (exceptId !== undefined) q = q.where('id', '!=', exceptId);
    const rows = await q.execute();
    if (rows.some((r) => r.username.toLowerCase() === username.toLowerCase())) return 'username';
    if (rows.length > 0) return 'email';
    return null;
  }

  async insert(u: NewUserRow): Promise<UserRow> {
    const row = await insertReturningAll(this.db, 'user', { ...u, admin: +u.admin, external: +u.external, alert: +u.alert });
    return { ...row, totp_id: null };
  }

  /** With `revoke`, the change and the revocation happen in one transaction. */
  async update(id: number, patch: UserPatch, revoke?: Revocation): Promise<void> {
    const values: Record<string, string | number> = {};
    for (const [k, v] of Object.entries(patch)) {
      if (v !== undefined) values[k] = typeof v === 'boolean' ? +v : v;
    }
    if (!revoke) {
      if (Object.keys(values).length > 0) await this.db.updateTable('user').set(values).where('id', '=', id).execute();
      return;
    }
    await this.db.transaction().execute(async (trx) => {
      if (Object.keys(values).length > 0) await trx.updateTable('user').set(values).where('id', '=', id).execute();
      await revokeIn(trx, id, revoke);
    });
  }

  /** With `revoke`, the new password and the revocation happen in one transaction. */
  async setPassword(id: number, hash: string, revoke?: Revocation): Promise<void> {
    if (!revoke) {
      await this.db.updateTable('user').set({ password: hash }).where('id', '=', id).execute();
      return;
    }
    await this.db.transaction().execute(async (trx) => {
      await trx.updateTable('user').set({ password: hash }).where('id', '=', id).execute();
      await revokeIn(trx, id, revoke);
    });
  }

  /**
   * When the session stored under `sessionId` (of user `userId`) completed its sign-in, or null
   * (unknown session, or one still waiting for the code).
   */
  async sessionSignedIn(sessionId: string, userId: number): Promise<string | null> {
    const row = await this.db
      .selectFrom('session')
      .select('signed_in')
      .where('id', '=', sessionId)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    return row?.signed_in ?? null;
  }

  /** Whether the user is owner or manager of at least one project (and so adds team members). */
  async managesAnyProject(userId: number): Promise<boolean> {
    const row = await this.db
      .selectFrom('project_user')
      .select('project_id')
      .where('user_id', '=', userId)
      .where('role', 'in', ['owner', 'manager'])
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  }

  async delete(id: number): Promise<void> {
    await this.db.deleteFrom('user').where('id', '=', id).execute();
  }

  async count(): Promise<number> {
    const r = await this.db.selectFrom('user').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirst();
    return Number(r?.n ?? 0);
  }

  async countAdmins(): Promise<number> {
    const r = await this.db
      .selectFrom('user')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('admin', '=', 1)
      .executeTakeFirst();
    return Number(r?.n ?? 0);
  }
}

async function revokeIn(trx: Transaction<Database>, userId: number, { keep }: Revocation): Promise<void> {
  let sessions = trx.deleteFrom('session').where('user_id', '=', userId);
  if (keep) sessions = sessions.where('id', '!=', keep.id);
  await sessions.execute();
  if (keep) await trx.updateTable('session').set({ id: keep.newId }).where('id', '=', keep.id).where('user_id', '=', userId).execute();
  await trx.updateTable('api_token').set({ expired: 1 }).where('user_id', '=', userId).where('expired', '=', 0).execute();
}
