import { Messages, ErrorCodes, type ErrorCode, type SecondFactors } from '@gantry/contracts';
import { newSessionValue, sessionIdOf } from '../../platform/auth.js';
import type { Clock } from '../../platform/clock.js';
import { dummyPasswordHash, verifyPassword } from '../../platform/crypto.js';
import { UnauthorizedError } from '../../platform/errors.js';
import type { EventBus } from '../../realtime/bus.js';
import type { UserRow } from '../users/users.repository.js';
import type { UsersService } from '../users/users.service.js';
import { throttleKeys, type LoginThrottle } from './login-throttle.js';
import { noAudit, type AuditRecorder } from '../audit/audit.port.js';
import type { SessionsRepository } from './sessions.repository.js';

/** A session idle this long is over. */
export const SESSION_IDLE_MS = 7 * 24 * 3600_000;
/** A session still waiting for its second sign-in step is over this long after the password. */
export const PENDING_SESSION_MS = 15 * 60_000;
/** last_active is written at most this often, so every request is not a write. */
const TOUCH_EVERY_MS = 60_000;

/** The second sign-in step, as the TOTP service provides it. */
export interface SecondFactor {
  /** Whether signing in as this user takes a second step after the password (a code or a passkey). */
  required(user: UserRow): boolean | Promise<boolean>;
  checkCode(userId: number, passcode: string): Promise<boolean>;
  useRecoveryCode(user: UserRow, code: string): Promise<boolean>;
  /** Which second steps this user has: the console shows only those. */
  methods(user: UserRow): Promise<SecondFactors>;
}

/**
 * A signed-in session: `verified` is false while it still waits for the second step;
 * `mfaByProvider`: its sign-in provider checks a second factor itself (see SessionOptions).
 */
export interface SessionIdentity {
  user: UserRow;
  verified: boolean;
  mfaByProvider: boolean;
}

/** What a sign-in path records on the session it opens. */
export interface SessionOptions {
  /**
   * The provider that vouched for the user (an OpenID Connect provider or LDAP marked so by the
   * admin) does its own multi-factor check: the admin's two-factor requirement does not apply.
   */
  mfaByProvider?: boolean;
}

interface Client {
  ip: string;
  userAgent: string;
}

/**
 * Sign-in against a directory (LDAP, modules/ldap): it takes every login but a local user's.
 * `check` is one counted attempt: it answers how to get the user it vouched for, or the refusal.
 */
export interface DirectorySignIn {
  handles(user: UserRow | undefined): boolean;
  check(typed: string, user: UserRow | undefined, password: string): Promise<{ accept: () => Promise<UserRow> } | { refusal: Error }>;
  /** The directory checks a second factor itself (GANTRY_LDAP_OWN_MFA). */
  readonly mfaByProvider: boolean;
}

export class AuthService {
  constructor(
    private readonly users: UsersService,
    private readonly sessions: SessionsRepository,
    private readonly throttle: LoginThrottle,
    private readonly secondFactor: SecondFactor,
    private readonly clock: Clock,
    private readonly bus: EventBus,
  ) {}

  /** LDAP sign-in, when GANTRY_LDAP_ENABLED (set by services.ts). */
  directory: DirectorySignIn | undefined;

  /** Where sign-ins and their failures are recorded (the composition root wires the audit trail in). */
  audit: AuditRecorder = noAudit;

  /**
   * Checks the credentials and opens a session; answers the same 401 for an unknown user and
   * a wrong password, and spends the same hashing time on both. A user with two-factor sign-in
   * gets a session that only the code (or the recovery code) makes usable.
   *
   * Failures count against the account (whichever of its logins was typed) and the address.
   */
  async login(auth: string, password: string, client: Client): Promise<string> {
    const login = auth.trim();
    const user = await this.users.findByLogin(login);
    if (this.directory?.handles(user)) return this.directoryLogin(this.directory, login, user, password, client);
    const keys = [user ? throttleKeys.account(user) : throttleKeys.unknownLogin(login), throttleKeys.address(client.ip)];
    const ok = await this.throttle.attempt(keys, async () => {
      const hash = user?.password ?? (await dummyPasswordHash());
      return (await verifyPassword(password, hash)) && !!user?.password && user.external === 0;
    });
    if (!ok || !user) {
      await this.signInFailed(user, 'password');
      throw new UnauthorizedError(Messages.incorrectLogin, { code: ErrorCodes.incorrectLogin });
    }
    return this.openSession(user.id, client, !(await this.secondFactor.required(user)));
  }

  /**
   * A login the directory checks: counted like a local password (the same keys, every refusal a
   * failure: wrong password, unknown, disabled, unreachable); its user then signs in like an
   * external provider's, waiting for the code when they have two-factor sign-in.
   */
  private async directoryLogin(directory: DirectorySignIn, login: string, user: UserRow | undefined, password: string, client: Client): Promise<string> {
    const keys = [user ? throttleKeys.account(user) : throttleKeys.unknownLogin(login), throttleKeys.address(client.ip)];
    const outcome: { result?: Awaited<ReturnType<DirectorySignIn['check']>> } = {};
    await this.throttle.attempt(keys, async () => {
      outcome.result = await directory.check(login, user, password);
      return 'accept' in outcome.result;
    });
    const result = outcome.result!;
    if ('refusal' in result) {
      await this.signInFailed(user, 'ldap');
      throw result.refusal;
    }
    return this.openExternalSession(await result.accept(), client, { mfaByProvider: directory.mfaByProvider });
  }

  /**
   * A session for a user an external provider vouched for: like after the password, it waits
   * for the code when the user has two-factor sign-in.
   */
  async openExternalSession(user: UserRow, client: Client, options: SessionOptions = {}): Promise<string> {
    return this.openSession(user.id, client, !(await this.secondFactor.required(user)), options);
  }

  async openSession(userId: number, client: Client, verified = true, options: SessionOptions = {}): Promise<string> {
    const { value, id } = newSessionValue();
    const now = this.clock.now().toISOString();
    await this.sessions.insert({
      id,
      user_id: userId,
      created: now,
      last_active: now,
      ip: client.ip,
      user_agent: client.userAgent.slice(0, 300),
      verified: verified ? 1 : 0,
      // A session that waits for the code is signed in when the code is given.
      signed_in: verified ? now : null,
      mfa_by_provider: options.mfaByProvider ? 1 : 0,
    });
    const user = await this.users.findById(userId);
    await this.audit.record({
      action: 'sign_in',
      objectType: 'user',
      objectId: userId,
      after: { second_factor_pending: !verified },
      caller: { actorId: userId, actorLogin: user?.username ?? null, authKind: 'session' },
    });
    return value;
  }

  /** The session behind a cookie, or null when it is unknown or over. */
  async resolveSession(value: string): Promise<SessionIdentity | null> {
    const id = sessionIdOf(value);
    const session = await this.sessions.find(id);
    if (!session) return null;
    const now = this.clock.now();
    const idle = now.getTime() - Date.parse(session.last_active);
    const pendingTooLong = session.verified === 0 && now.getTime() - Date.parse(session.created) > PENDING_SESSION_MS;
    if (idle > SESSION_IDLE_MS || pendingTooLong) {
      await this.sessions.delete(id);
      this.bus.userChanged(session.user_id);
      return null;
    }
    if (idle > TOUCH_EVERY_MS) await this.sessions.touch(id, now.toISOString());
    const user = await this.users.findById(session.user_id);
    if (!user) return null;
    // Two-factor turned off meanwhile (server setting, or the user's method removed): the
    // password was checked, which is then all sign-in asks for.
    return { user, verified: session.verified === 1 || !(await this.secondFactor.required(user)), mfaByProvider: session.mfa_by_provider === 1 };
  }

  /**
   * The second sign-in step with a code: marks the session verified. Throttled like passwords,
   * per user and per address, so the million codes cannot be tried at speed.
   */
  async verify(value: string, passcode: string, client: Client): Promise<void> {
    await this.secondStep(value, client, [Messages.incorrectVerificationCode, ErrorCodes.incorrectVerificationCode], (user) =>
      this.secondFactor.checkCode(user.id, passcode),
    );
  }

  /**
   * The second steps the session's user has (a code, a passkey, the recovery code), asked for by
   * the console's second-step screen; unknown or ended sessions get 401 like the step itself.
   */
  async secondFactors(value: string): Promise<SecondFactors> {
    const session = await this.resolveSession(value);
    if (!session) throw new UnauthorizedError();
    return this.secondFactor.methods(session.user);
  }

  /** The second step with the recovery code, which also removes the user's TOTP method. */
  async recover(value: string, code: string, client: Client): Promise<void> {
    await this.secondStep(value, client, [Messages.incorrectRecoveryCode, ErrorCodes.incorrectRecoveryCode], (user) =>
      this.secondFactor.useRecoveryCode(user, code),
    );
  }

  /** Ends the session; the user's open sockets are re-checked, so the ones it opened close. */
  async logout(value: string): Promise<void> {
    const id = sessionIdOf(value);
    const session = await this.sessions.find(id);
    if (!session) return;
    await this.sessions.delete(id);
    this.bus.userChanged(session.user_id);
    // The session's user signs out (the route is public: the request may not have resolved one).
    const user = await this.users.findById(session.user_id);
    await this.audit.record({
      action: 'sign_out',
      objectType: 'user',
      objectId: session.user_id,
      caller: { actorId: session.user_id, actorLogin: user?.username ?? null, authKind: 'session' },
    });
  }

  /** The second step with any check (a code, the recovery code, a passkey: see modules/passkeys). */
  async secondStep(
    value: string,
    client: Client,
    /** The refusal of a wrong code: its text and its code. */
    wrong: [string, ErrorCode],
    check: (user: UserRow) => Promise<boolean>,
  ): Promise<void> {
    const session = await this.resolveSession(value);
    if (!session) throw new UnauthorizedError();
    if (session.verified) return;
    const keys = [throttleKeys.secondFactor(session.user), throttleKeys.address(client.ip)];
    if (!(await this.throttle.attempt(keys, () => check(session.user)))) {
      await this.audit.record({ action: 'totp_failed', objectType: 'user', objectId: session.user.id, caller: { actorId: session.user.id, actorLogin: session.user.username, authKind: 'session' } });
      throw new UnauthorizedError(wrong[0], { code: wrong[1] });
    }
    await this.sessions.markVerified(sessionIdOf(value), this.clock.now().toISOString());
    await this.audit.record({
      action: 'sign_in',
      objectType: 'user',
      objectId: session.user.id,
      after: { second_factor: true },
      caller: { actorId: session.user.id, actorLogin: session.user.username, authKind: 'session' },
    });
  }

  /**
   * A refused sign-in, with the user when the login names one. A login that names nobody is not
   * kept: it may be a password typed into the wrong field.
   */
  private async signInFailed(user: UserRow | undefined, method: 'password' | 'ldap'): Promise<void> {
    await this.audit.record({
      action: 'sign_in_failed',
      objectType: 'user',
      objectId: user?.id ?? null,
      after: user ? { login: user.username, method } : { unknown_login: true, method },
      caller: { actorId: user?.id ?? null, actorLogin: user?.username ?? null, authKind: 'session' },
    });
  }
}
