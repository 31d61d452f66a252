import { ErrorCodes, Messages, VERIFICATION_CODE_LENGTH, type TotpCreated } from '@gantry/contracts';
import { Secret, TOTP } from 'otpauth';
import QRCode from 'qrcode';
import type { Clock } from '../../platform/clock.js';
import { randomToken, sha256, verifyPassword, type SecretBox } from '../../platform/crypto.js';
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../../platform/errors.js';
import { noAudit, type AuditRecorder } from '../audit/audit.port.js';
import type { EventsService } from '../events/events.service.js';
import type { UserRow } from '../users/users.repository.js';
import type { Actor, UsersService } from '../users/users.service.js';
import { throttleKeys, type LoginThrottle } from './login-throttle.js';
import type { TotpRepository } from './totp.repository.js';

export interface TotpSettings {
  /** GANTRY_TOTP_ENABLED: users may enable two-factor sign-in, and sign-in asks for the code. */
  enabled: boolean;
  /** GANTRY_TOTP_ALLOW_RECOVERY: the recovery code may stand in for a code (once). */
  allowRecovery: boolean;
}

/** What proves it is really the user removing their own method: the password or a current code. */
export interface TotpProof {
  password?: string | undefined;
  passcode?: string | undefined;
  /** The caller's address, for throttling wrong proofs like wrong sign-ins. */
  ip: string;
}

/** Whether the user signs in with a password here (not only through an external provider). */
const hasPassword = (user: UserRow): user is UserRow & { password: string } => user.external === 0 && !!user.password;

/** What the issuer field of authenticator apps shows. */
export const TOTP_ISSUER = 'Gantry';
/** Codes of the previous and next 30-second step are accepted too, for clocks a little apart. */
const WINDOW = 1;
const RECOVERY_CODE_LENGTH = 16;

/** Spaces, dashes and case do not matter when a recovery code is typed back. */
const recoveryHash = (code: string) => sha256(code.replace(/[\s-]/g, '').toLowerCase());

/**
 * What the audit trail shows of a method: whether one exists and whether sign-in asks for its
 * codes (confirmed), never its secret, QR code or recovery code. The object is the user.
 */
const audited = (confirmed: boolean) => ({ enabled: true, confirmed });

/**
 * Two-factor sign-in with RFC 6238 one-time codes: enabling (a secret sealed at rest and a
 * recovery code kept only as a hash), the setup QR code, and checking codes at sign-in.
 */
export class TotpService {
  constructor(
    private readonly repo: TotpRepository,
    private readonly users: UsersService,
    private readonly box: SecretBox,
    private readonly events: EventsService,
    private readonly clock: Clock,
    private readonly settings: TotpSettings,
    private readonly throttle: LoginThrottle,
  ) {}

  /** Where set-up, confirmation and removal are recorded (the composition root wires the audit trail in). */
  audit: AuditRecorder = noAudit;

  /** Whether signing in as this user takes a code after the password. */
  required(user: UserRow): boolean {
    return this.settings.enabled && user.totp_id !== null;
  }

  /**
   * The user themself, with their current password (a session left open or stolen must not turn
   * it on and lock the owner out), or an admin for another user; the recovery code is in this
   * answer only. A user without a password here (signing in through an external provider) has
   * nothing to confirm with, and enables it with the session alone.
   *
   * One's own method starts unconfirmed, with its secret in the answer: sign-in asks for its codes
   * only once `confirm` accepted one, so a secret that never reached an authenticator app locks
   * nobody out, and a method left unconfirmed is replaced by the next one. An admin's for another
   * user (who cannot confirm it for them) is on at once, as Semaphore's one-step enabling is.
   */
  async enable(actor: Actor, userId: number, proof: Omit<TotpProof, 'passcode'>): Promise<TotpCreated> {
    if (!this.settings.enabled) throw new ValidationError(Messages.totpDisabled, { code: ErrorCodes.totpDisabled });
    const user = await this.users.get(actor, userId);
    if (user.totp_id !== null) throw new ConflictError(Messages.totpExists, { code: ErrorCodes.totpExists });
    const self = actor.id === userId;
    if (self && hasPassword(user)) {
      if (!proof.password) {
        throw new ValidationError(Messages.currentPasswordRequired, {
          code: ErrorCodes.currentPasswordRequired,
          field: 'password',
        });
      }
      await this.checkProof(user, { password: proof.password, ip: proof.ip });
    }
    // A method still waiting for its first code is replaced: its removal is an entry of its own.
    const unconfirmed = await this.repo.findByUser(userId);
    await this.repo.deleteUnconfirmed(userId);
    if (unconfirmed?.confirmed === 0) await this.audit.record({ action: 'delete', objectType: 'totp', objectId: userId, before: audited(false) });
    const recovery = randomToken(RECOVERY_CODE_LENGTH);
    const secret = new Secret({ size: 20 }).base32;
    const id = await this.repo.insert({
      user_id: userId,
      secret: this.box.seal(secret),
      recovery_hash: recoveryHash(recovery),
      created: this.clock.now().toISOString(),
      confirmed: self ? 0 : 1,
    });
    await this.audit.record({ action: 'create', objectType: 'totp', objectId: userId, after: audited(!self) });
    if (!self) {
      await this.record(actor.id, user, `Two-factor sign-in enabled for ${user.username}`);
      return { id, recovery_code: recovery, confirmed: true };
    }
    return { id, recovery_code: recovery, confirmed: false, secret };
  }

  /**
   * Turns the user's own new method on with a current code of its secret (proof that an
   * authenticator app holds it). Wrong codes count like wrong codes at sign-in; the code is spent.
   */
  async confirm(actor: Actor, userId: number, totpId: number, code: string, ip: string): Promise<void> {
    if (!this.settings.enabled) throw new ValidationError(Messages.totpDisabled, { code: ErrorCodes.totpDisabled });
    const user = await this.users.get(actor, userId);
    if (actor.id !== userId) throw new ForbiddenError(Messages.totpConfirmOwnOnly, { code: ErrorCodes.totpConfirmOwnOnly });
    const row = await this.repo.findByUser(userId);
    if (!row || row.id !== totpId) throw new NotFoundError(Messages.totpNotFound, { code: ErrorCodes.totpNotFound });
    if (row.confirmed) throw new ConflictError(Messages.totpExists, { code: ErrorCodes.totpExists });
    const keys = [throttleKeys.secondFactor(user), throttleKeys.address(ip)];
    if (!(await this.throttle.attempt(keys, () => this.checkCode(userId, code)))) {
      throw new ValidationError(Messages.incorrectVerificationCode, { code: ErrorCodes.totpCodeIncorrect, field: 'code' });
    }
    if (!(await this.repo.confirm(userId, totpId))) throw new ConflictError(Messages.totpExists, { code: ErrorCodes.totpExists });
    await this.audit.record({ action: 'update', objectType: 'totp', objectId: userId, before: audited(false), after: audited(true) });
    await this.record(actor.id, user, `Two-factor sign-in enabled for ${user.username}`);
  }

  /**
   * The user themself, with their password or a current code (a session left open or stolen is
   * not enough to weaken the account), or an admin for another user without either (e.g. for a
   * user who lost their device and recovery code).
   */
  async disable(actor: Actor, userId: number, totpId: number, proof: TotpProof): Promise<void> {
    const user = await this.users.get(actor, userId);
    const row = await this.repo.findByUser(userId);
    if (!row || row.id !== totpId) throw new NotFoundError(Messages.totpNotFound, { code: ErrorCodes.totpNotFound });
    if (actor.id === userId) await this.checkProof(user, proof);
    if (!(await this.repo.delete(userId, totpId))) throw new NotFoundError(Messages.totpNotFound, { code: ErrorCodes.totpNotFound });
    await this.audit.record({ action: 'delete', objectType: 'totp', objectId: userId, before: audited(row.confirmed === 1) });
    await this.record(actor.id, user, `Two-factor sign-in disabled for ${user.username}`);
  }

  /**
   * The setup QR code (PNG of the otpauth:// URI). It carries the secret, so only the user
   * themself may fetch it (not even an admin), and only until the first code was accepted.
   */
  async qrCode(actor: Actor, userId: number, totpId: number): Promise<Buffer> {
    const user = await this.users.get(actor, userId);
    if (actor.id !== userId) throw new ForbiddenError(Messages.totpQrOwnOnly, { code: ErrorCodes.totpQrOwnOnly });
    const row = await this.repo.findByUser(userId);
    if (!row || row.id !== totpId || row.last_step !== 0) throw new NotFoundError(Messages.totpNotFound, { code: ErrorCodes.totpNotFound });
    return QRCode.toBuffer(this.totp(this.box.open(row.secret), user.username).toString(), {
      type: 'png',
      margin: 2,
      width: 240,
    });
  }

  /** Checks a code; a code is accepted once, so one seen over the shoulder cannot be replayed. */
  async checkCode(userId: number, passcode: string): Promise<boolean> {
    const row = await this.repo.findByUser(userId);
    if (!row || !/^\d+$/.test(passcode)) return false;
    const totp = this.totp(this.box.open(row.secret), '');
    const timestamp = this.clock.now().getTime();
    const delta = totp.validate({ token: passcode, timestamp, window: WINDOW });
    if (delta === null) return false;
    return this.repo.useStep(row.id, totp.counter({ timestamp }) + delta);
  }

  /**
   * Accepts the recovery code in place of a code (when allowed) and removes the method: the code
   * is spent, and the user sets two-factor up again with a new one.
   */
  async useRecoveryCode(user: UserRow, code: string): Promise<boolean> {
    if (!this.settings.allowRecovery) throw new ForbiddenError(Messages.recoveryDisabled, { code: ErrorCodes.recoveryDisabled });
    if (!(await this.repo.deleteByRecovery(user.id, recoveryHash(code)))) return false;
    // At the second sign-in step no user is resolved yet: the user signing in acts. The entry says
    // the recovery code was spent, never what it was.
    await this.audit.record({
      action: 'delete',
      objectType: 'totp',
      objectId: user.id,
      before: { ...audited(true), recovery_code_used: false },
      after: { enabled: false, confirmed: false, recovery_code_used: true },
      caller: { actorId: user.id, actorLogin: user.username, authKind: 'session' },
    });
    await this.record(user.id, user, `Two-factor sign-in disabled for ${user.username} by its recovery code`);
    return true;
  }

  /**
   * Wrong proofs count like failed sign-ins (per account and address), so the password cannot
   * be guessed here at speed either.
   */
  private async checkProof(user: UserRow, proof: TotpProof): Promise<void> {
    const { password, passcode } = proof;
    if (password) {
      const keys = [throttleKeys.account(user), throttleKeys.address(proof.ip)];
      const ok = await this.throttle.attempt(
        keys,
        async () => hasPassword(user) && (await verifyPassword(password, user.password)),
      );
      if (!ok) {
        throw new ValidationError(Messages.incorrectCurrentPassword, {
          code: ErrorCodes.currentPasswordIncorrect,
          field: 'password',
        });
      }
      return;
    }
    if (passcode) {
      const keys = [throttleKeys.secondFactor(user), throttleKeys.address(proof.ip)];
      if (!(await this.throttle.attempt(keys, () => this.checkCode(user.id, passcode.trim())))) {
        throw new ValidationError(Messages.incorrectVerificationCode, { code: ErrorCodes.incorrectVerificationCode, field: 'passcode' });
      }
      return;
    }
    throw new ValidationError(Messages.totpProofRequired, { code: ErrorCodes.totpProofRequired });
  }

  private totp(base32: string, label: string): TOTP {
    return new TOTP({
      issuer: TOTP_ISSUER,
      label,
      algorithm: 'SHA1',
      digits: VERIFICATION_CODE_LENGTH,
      period: 30,
      secret: Secret.fromBase32(base32),
    });
  }

  private record(actorId: number, user: UserRow, description: string): Promise<void> {
    return this.events.record({ projectId: null, userId: actorId, objectType: 'user', objectId: user.id, description });
  }
}
