import { ErrorCodes, Messages, userCreateSchema } from '@gantry/contracts';
import type { Clock } from '../../platform/clock.js';
import { AppError, ConflictError, ForbiddenError, UnauthorizedError } from '../../platform/errors.js';
import type { EventsService } from '../events/events.service.js';
import type { UserRow } from '../users/users.repository.js';
import type { UsersService } from '../users/users.service.js';
import type { DirectoryUser, DirectoryVerdict, LdapDirectory } from './ldap-directory.js';
import type { LdapUsersRepository } from './ldap-users.repository.js';

/** Hands a user's directory groups (DNs and CNs) to whatever maps them to roles, at each sign-in. */
export interface DirectoryGroupsPort {
  applyAtSignIn(userId: number, source: 'ldap', groups: string[]): Promise<void>;
}

/** How often users with open sessions are looked up in the directory (gone or disabled: signed out). */
export const LDAP_CHECK_INTERVAL_MS = 60_000;

export interface LdapServiceDeps {
  directory: LdapDirectory;
  repo: LdapUsersRepository;
  users: UsersService;
  groups: DirectoryGroupsPort;
  events: EventsService;
  clock: Clock;
  /** Signs the user out everywhere (sessions deleted, tokens expired, sockets closed). */
  revoke: (userId: number) => Promise<void>;
  /** A line for the server log (never a password). */
  log: (line: string) => void;
  /** GANTRY_LDAP_OWN_MFA: the directory checks a second factor itself. */
  ownMfa: boolean;
}

/**
 * LDAP / Active Directory sign-in: which logins go to the directory, the refusals it gives, the
 * external users it creates and updates, and the periodic check that signs out users the
 * directory no longer has or has disabled.
 */
export class LdapService {
  private timer: NodeJS.Timeout | undefined;
  private checking: Promise<number> | undefined;

  constructor(private readonly d: LdapServiceDeps) {}

  /** Whether sign-in as this user (undefined: no such login here) is the directory's to check: any login but a local user's. */
  handles(user: UserRow | undefined): boolean {
    return !user || user.external === 1;
  }

  get mfaByProvider(): boolean {
    return this.d.ownMfa;
  }

  /** One sign-in attempt for AuthService: the user to sign in once the directory vouched, or the refusal. */
  async check(
    typed: string,
    user: UserRow | undefined,
    password: string,
  ): Promise<{ accept: () => Promise<UserRow> } | { refusal: AppError }> {
    const verdict = await this.verify(typed, user, password);
    if (verdict.kind !== 'ok') return { refusal: this.refusal(verdict) };
    return { accept: () => this.signIn(verdict.user, user) };
  }

  /**
   * The directory's verdict on the password. A user linked to the directory is looked up by the
   * login the directory gave them (so their email works too); others by what was typed.
   */
  async verify(typed: string, user: UserRow | undefined, password: string): Promise<DirectoryVerdict> {
    const linked = user ? await this.d.repo.find(user.id) : undefined;
    const verdict = await this.d.directory.authenticate(linked?.login ?? typed, password);
    if (verdict.kind === 'unavailable') this.d.log(`LDAP sign-in: the directory could not be used: ${verdict.detail}`);
    return verdict;
  }

  /** The error a refused sign-in answers: the same for an unknown login and a wrong password. */
  refusal(verdict: DirectoryVerdict): AppError {
    switch (verdict.kind) {
      case 'disabled':
        return new ForbiddenError('This account is disabled in the directory', {
          code: ErrorCodes.ldapAccountDisabled,
        });
      case 'unavailable':
        return new AppError(503, 'The directory server could not be reached; try again later', {
          code: ErrorCodes.ldapUnavailable,
        });
      case 'rejected':
      case 'ok':
        return new UnauthorizedError(Messages.incorrectLogin, { code: ErrorCodes.incorrectLogin });
    }
  }

  /**
   * The Gantry user for a person the directory vouched for: `existing` (the user the typed login
   * named), the user linked to their directory login, or a new external user. Name and email
   * follow the directory; the groups go to the port. Never a local (password) user.
   */
  async signIn(person: DirectoryUser, existing: UserRow | undefined): Promise<UserRow> {
    let user = existing;
    if (user) {
      const linked = await this.d.repo.find(user.id);
      // An external user an admin made beforehand (as in Semaphore) is linked by its username.
      if (!linked && user.username.toLowerCase() !== person.login.toLowerCase())
        throw unusable(
          'An account with this username or email exists and is not linked to the directory; ask an administrator',
        );
    } else {
      const linked = await this.d.repo.findByLogin(person.login);
      user = linked
        ? await this.d.users.findById(linked.user_id)
        : ((await this.d.users.findByLogin(person.login)) ?? undefined);
      if (user && user.external !== 1)
        throw unusable('A local account with this username exists; sign in with its password');
    }
    if (!user) user = await this.create(person);
    else await this.refresh(user, person);
    if (user.external !== 1) throw unusable('A local account with this username exists; sign in with its password');
    await this.d.repo.upsert(user.id, person.dn, person.login, this.d.clock.now().toISOString());
    await this.d.groups.applyAtSignIn(user.id, 'ldap', person.groups);
    return (await this.d.users.findById(user.id)) ?? user;
  }

  private async create(person: DirectoryUser): Promise<UserRow> {
    if (!person.email) throw unusable('The directory has no email address for this account; ask an administrator');
    const input = userCreateSchema.safeParse({
      username: person.login,
      name: person.name ?? person.login,
      email: person.email,
      admin: false,
      external: true,
      alert: false,
    });
    if (!input.success)
      throw unusable(
        `The directory's profile for this account is unusable: ${input.error.issues[0]?.message ?? 'invalid'}`,
      );
    try {
      const created = await this.d.users.create(input.data);
      await this.d.events.record({
        projectId: null,
        userId: created.id,
        objectType: 'user',
        objectId: created.id,
        description: `User ${created.username} created by LDAP sign-in`,
      });
      return created;
    } catch (err) {
      if (!(err instanceof ConflictError)) throw err;
      // A sign-in racing this one made the user; anything else holding the name or email is not ours.
      const raced = await this.d.users.findByLogin(person.login);
      if (raced && raced.external === 1 && raced.username.toLowerCase() === person.login.toLowerCase()) return raced;
      throw unusable(
        'An account with this username or email exists and is not linked to the directory; ask an administrator',
      );
    }
  }

  /** Name and email as the directory has them now; an email another user holds is left as it is. */
  private async refresh(user: UserRow, person: DirectoryUser): Promise<void> {
    const name = person.name ?? user.name;
    const emailOk = person.email && userCreateSchema.shape.email.safeParse(person.email).success;
    let email = emailOk ? person.email! : user.email;
    if (email.toLowerCase() !== user.email.toLowerCase()) {
      const holder = await this.d.users.findByLogin(email);
      if (holder && holder.id !== user.id) email = user.email;
    }
    if (name !== user.name || email !== user.email) await this.d.users.setAdminFields(user.id, { name, email });
  }

  /**
   * Looks up every directory user who has a session; the ones gone from the directory or disabled
   * there are signed out everywhere. An unreachable directory signs nobody out. Answers how many were.
   */
  checkSessions(): Promise<number> {
    // One check at a time: a slow directory does not pile them up.
    this.checking ??= this.runCheck().finally(() => (this.checking = undefined));
    return this.checking;
  }

  private async runCheck(): Promise<number> {
    const rows = await this.d.repo.withSessions();
    if (rows.length === 0) return 0;
    let states;
    try {
      states = await this.d.directory.states(rows.map((r) => r.login));
    } catch (err) {
      this.d.log(
        `LDAP session check: the directory could not be used: ${err instanceof Error ? err.message : String(err)}`,
      );
      return 0;
    }
    let revoked = 0;
    for (const row of rows) {
      const state = states.get(row.login);
      if (state === 'active' || state === undefined) continue;
      await this.d.revoke(row.user_id);
      revoked++;
      const user = await this.d.users.findById(row.user_id);
      const why = state === 'gone' ? 'no longer in the directory' : 'disabled in the directory';
      await this.d.events.record({
        projectId: null,
        userId: null,
        objectType: 'user',
        objectId: row.user_id,
        description: `User ${user?.username ?? row.login} signed out: ${why}`,
      });
    }
    return revoked;
  }

  /** Runs the session check every `intervalMs` until `stop`. */
  start(intervalMs = LDAP_CHECK_INTERVAL_MS): void {
    this.stop();
    this.timer = setInterval(
      () => void this.checkSessions().catch((err: unknown) => this.d.log(`LDAP session check failed: ${String(err)}`)),
      intervalMs,
    );
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }
}

function unusable(message: string): ConflictError {
  return new ConflictError(message, { code: ErrorCodes.ldapAccountUnusable });
}
