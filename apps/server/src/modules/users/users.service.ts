import { ErrorCodes, Messages, type PasswordChange, type userCreateSchema, type userUpdateSchema } from '@gantry/contracts';
import type { z } from 'zod';
import { newSessionValue, sessionIdOf } from '../../platform/auth.js';
import type { Clock } from '../../platform/clock.js';
import { hashPassword, verifyPassword } from '../../platform/crypto.js';
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../../platform/errors.js';
import type { EventBus } from '../../realtime/bus.js';
import type { Revocation, UserRow, UsersRepository } from './users.repository.js';
import { noAudit, type AuditRecorder } from '../audit/audit.port.js';
import { presentUser } from './users.presenter.js';

type CreateInput = z.output<typeof userCreateSchema>;
type UpdateInput = z.output<typeof userUpdateSchema>;

/** Who is asking: admins manage everyone, others only themselves. */
export interface Actor {
  id: number;
  admin: boolean;
}

/** The cookie value of the session making the request, when it is one (not a bearer token). */
export type CallerSession = string | undefined;

/**
 * How long after signing in (password, and the code when asked) a session may change its user's
 * password without the current one, like other products' "sudo mode". Counted from the sign-in,
 * never from the last activity; an API token never counts.
 */
export const RECENT_SIGN_IN_MS = 10 * 60_000;

export class UsersService {
  constructor(
    private readonly repo: UsersRepository,
    private readonly clock: Clock,
    private readonly bus: EventBus,
  ) {}

  /** Where changes of users are recorded (the composition root wires the audit trail in). */
  audit: AuditRecorder = noAudit;

  list(): Promise<UserRow[]> {
    return this.repo.list();
  }

  /**
   * The users a non-admin may pick as team members: only owners and managers of some project
   * add members, so only they may list (the route shows them names only).
   */
  async listCandidates(actor: Actor): Promise<UserRow[]> {
    if (!actor.admin && !(await this.repo.managesAnyProject(actor.id))) {
      throw new ForbiddenError('Only administrators and project owners or managers can list users', { code: ErrorCodes.usersListForbidden });
    }
    return this.repo.list();
  }

  async get(actor: Actor, id: number): Promise<UserRow> {
    if (!actor.admin && actor.id !== id) throw new NotFoundError(Messages.userNotFound, { code: ErrorCodes.userNotFound });
    const row = await this.repo.findById(id);
    if (!row) throw new NotFoundError(Messages.userNotFound, { code: ErrorCodes.userNotFound });
    return row;
  }

  findById(id: number): Promise<UserRow | undefined> {
    return this.repo.findById(id);
  }

  findByLogin(login: string): Promise<UserRow | undefined> {
    return this.repo.findByLogin(login);
  }

  count(): Promise<number> {
    return this.repo.count();
  }

  async create(input: CreateInput): Promise<UserRow> {
    await this.assertUnique(input.username, input.email);
    const password = input.password && !input.external ? await hashPassword(input.password) : null;
    const row = await this.repo.insert({
      username: input.username,
      name: input.name,
      email: input.email,
      password,
      admin: input.admin,
      external: input.external,
      alert: input.alert,
      created: this.clock.now().toISOString(),
    });
    await this.audit.record({ action: 'create', objectType: 'user', objectId: row.id, after: presentUser(row), secretsChanged: password ? ['password'] : [] });
    return row;
  }

  /**
   * Users may edit their own name, username, email and alert, never their admin or external flags.
   * A non-empty `password` is set as by `changePassword` (checked before anything changes). Taking
   * the admin flag away or a new password signs the user out everywhere (see `revocation`);
   * answers the caller's new session value when their own session was rotated.
   */
  async update(actor: Actor, id: number, input: UpdateInput, session?: CallerSession): Promise<string | null> {
    const row = await this.get(actor, id);
    const password = input.password
      ? await this.checkPasswordChange(actor, row, input.password, input.current_password, session)
      : null;
    if (!actor.admin && (input.admin !== undefined && input.admin !== (row.admin === 1))) {
      throw new ForbiddenError('Only administrators can change the admin flag', { code: ErrorCodes.adminFlagForbidden });
    }
    if (!actor.admin && input.external !== undefined && input.external !== (row.external === 1)) {
      throw new ForbiddenError('Only administrators can change the external flag', { code: ErrorCodes.externalFlagForbidden });
    }
    if (input.external !== undefined && input.external !== (row.external === 1)) {
      throw new ValidationError('The external flag can only be set when the user is created', { code: ErrorCodes.externalFlagFixed, field: 'external' });
    }
    if (row.external === 1 && input.email.toLowerCase() !== row.email.toLowerCase()) {
      throw new ValidationError('The email of an external user cannot be changed', { code: ErrorCodes.externalEmailFixed, field: 'email' });
    }
    if (actor.admin && input.admin === false && row.admin === 1 && (await this.repo.countAdmins()) <= 1) {
      throw new ConflictError(Messages.lastAdmin, { code: ErrorCodes.lastAdmin });
    }
    await this.assertUnique(input.username, input.email, id);
    const demoted = actor.admin && input.admin === false && row.admin === 1;
    const revoke = demoted || password !== null;
    const { revocation, newSession } = revoke ? this.revocation(actor, id, session) : { revocation: undefined, newSession: null };
    await this.repo.update(
      id,
      {
        name: input.name,
        username: input.username,
        email: input.email,
        alert: input.alert,
        admin: actor.admin ? input.admin : undefined,
        password: password ?? undefined,
      },
      revocation,
    );
    if (revoke) this.bus.userChanged(id);
    const after = await this.repo.findById(id);
    await this.audit.record({ action: 'update', objectType: 'user', objectId: id, before: presentUser(row), after: after ? presentUser(after) : null, secretsChanged: password ? ['password'] : [] });
    return newSession;
  }

  async delete(actor: Actor, id: number): Promise<UserRow> {
    if (!actor.admin) throw new ForbiddenError();
    const row = await this.get(actor, id);
    if (row.id === actor.id) throw new ConflictError(Messages.cannotDeleteSelf, { code: ErrorCodes.cannotDeleteSelf });
    if (row.admin === 1 && (await this.repo.countAdmins()) <= 1) throw new ConflictError(Messages.lastAdmin, { code: ErrorCodes.lastAdmin });
    await this.repo.delete(id);
    // Sessions and tokens went with the user (cascade); their sockets close.
    this.bus.userChanged(id);
    await this.audit.record({ action: 'delete', objectType: 'user', objectId: id, before: presentUser(row) });
    return row;
  }

  /**
   * Changing one's own password needs the current one, or a session signed in during the last
   * RECENT_SIGN_IN_MS; an admin may reset anyone else's. Either way the user is signed out
   * everywhere but in the caller's own session, which gets a new value: answered here, for the
   * route to set as the cookie.
   */
  async changePassword(actor: Actor, id: number, input: PasswordChange, session?: CallerSession): Promise<string | null> {
    const row = await this.get(actor, id);
    const hash = await this.checkPasswordChange(actor, row, input.password, input.current_password, session);
    const { revocation, newSession } = this.revocation(actor, id, session);
    await this.repo.setPassword(id, hash, revocation);
    this.bus.userChanged(id);
    await this.audit.record({ action: 'update', objectType: 'user', objectId: id, before: {}, after: {}, secretsChanged: ['password'] });
    return newSession;
  }

  /**
   * Whether `actor` may give `row` this password; its hash. Their own takes the current password
   * (a wrong one is refused even from a fresh session) or, without one, a session that signed in
   * recently: Semaphore's console sends the new password alone, and a session left open or an API
   * token that leaked must not be enough.
   */
  private async checkPasswordChange(
    actor: Actor,
    row: UserRow,
    password: string,
    current: string | undefined,
    session: CallerSession,
  ): Promise<string> {
    if (row.external === 1) throw new ValidationError('External users have no password here', { code: ErrorCodes.externalUserNoPassword });
    if (actor.id === row.id) {
      if (current) {
        if (!row.password || !(await verifyPassword(current, row.password))) {
          throw new ValidationError(Messages.incorrectCurrentPassword, { code: ErrorCodes.currentPasswordIncorrect, field: 'current_password' });
        }
      } else if (!(await this.signedInRecently(row.id, session))) {
        throw new ValidationError(Messages.recentSignInRequired, { code: ErrorCodes.recentSignInRequired, field: 'current_password' });
      }
    } else if (!actor.admin) {
      throw new ForbiddenError();
    }
    return hashPassword(password);
  }

  /**
   * Used by the CLI and start-up: set a password without the current one. A new password signs
   * the user out everywhere; the same password again (start-up sets the configured admin password
   * at every start) signs nobody out.
   */
  async resetPassword(id: number, password: string): Promise<void> {
    const row = await this.repo.findById(id);
    const unchanged = !!row?.password && (await verifyPassword(password, row.password));
    await this.repo.setPassword(id, await hashPassword(password), unchanged ? undefined : {});
    if (!unchanged) this.bus.userChanged(id);
    if (!unchanged) await this.audit.record({ action: 'update', objectType: 'user', objectId: id, before: {}, after: {}, secretsChanged: ['password'] });
  }

  async deleteByAdmin(id: number): Promise<void> {
    const row = await this.repo.findById(id);
    await this.repo.delete(id);
    if (row) await this.audit.record({ action: 'delete', objectType: 'user', objectId: id, before: presentUser(row) });
  }

  async setAdminFields(id: number, patch: { name?: string; email?: string; admin?: boolean }): Promise<void> {
    const before = await this.repo.findById(id);
    await this.repo.update(id, patch);
    const after = await this.repo.findById(id);
    if (before && after) await this.audit.record({ action: 'update', objectType: 'user', objectId: id, before: presentUser(before), after: presentUser(after) });
  }

  /** Whether the caller's session (never a token) completed its sign-in at most RECENT_SIGN_IN_MS ago. */
  private async signedInRecently(userId: number, session: CallerSession): Promise<boolean> {
    if (!session) return false;
    const signedIn = await this.repo.sessionSignedIn(sessionIdOf(session), userId);
    if (!signedIn) return false;
    // Another node's clock may run a little ahead: a sign-in "in the future" is a recent one.
    return this.clock.now().getTime() - Date.parse(signedIn) <= RECENT_SIGN_IN_MS;
  }

  /** Everything of user `id` goes, except the caller's own session, which gets a new value. */
  private revocation(actor: Actor, id: number, session: CallerSession): { revocation: Revocation; newSession: string | null } {
    if (actor.id !== id || !session) return { revocation: {}, newSession: null };
    const next = newSessionValue();
    return { revocation: { keep: { id: sessionIdOf(session), newId: next.id } }, newSession: next.value };
  }

  private async assertUnique(username: string, email: string, exceptId?: number): Promise<void> {
    const clash = await this.repo.findClash(username, email, exceptId);
    if (clash === 'username') throw new ConflictError(Messages.usernameTaken, { code: ErrorCodes.usernameTaken });
    if (clash === 'email') throw new ConflictError(Messages.emailTaken, { code: ErrorCodes.emailTaken });
  }
}
