import {
  ErrorCodes,
  Messages,
  PASSKEY_CHALLENGE_MS,
  type AuthenticationResponse,
  type Passkey,
  type PasskeyOptions,
  type RegistrationResponse,
} from '@gantry/contracts';
import { sessionIdOf } from '../../platform/auth.js';
import type { Clock } from '../../platform/clock.js';
import { randomToken, sha256, verifyPassword } from '../../platform/crypto.js';
import {
  ConflictError,
  ForbiddenError,
  NotFoundError,
  UnauthorizedError,
  ValidationError,
} from '../../platform/errors.js';
import { noAudit, type AuditRecorder } from '../audit/audit.port.js';
import type { AuthService } from '../auth/auth.service.js';
import { throttleKeys, type LoginThrottle } from '../auth/login-throttle.js';
import type { EventsService } from '../events/events.service.js';
import type { UserRow } from '../users/users.repository.js';
import type { UsersService } from '../users/users.service.js';
import { ceremony, challengeOf, relyingPartyOf } from './passkeys.ceremony.js';
import { presentPasskey } from './passkeys.presenter.js';
import type { PasskeyRow, PasskeysRepository } from './passkeys.repository.js';

/** What a challenge was handed out for; an answer counts only for the same purpose. */
type Purpose = 'register' | 'proof' | 'second-factor' | 'sign-in';

/** What a challenge was handed out for: a purpose, the user it names and what it is bound to (a hash). */
interface ChallengeFor {
  purpose: Purpose;
  user: number | null;
  binding: string | null;
}

/** What proves it is really the user removing one of their passkeys. */
export interface PasskeyProof {
  password?: string | undefined;
  passcode?: string | undefined;
  assertion?: AuthenticationResponse | undefined;
  ip: string;
}

interface Client {
  ip: string;
  userAgent: string;
}

/** Why an answer was refused: its challenge (unknown, spent, expired, not this caller's) or the answer itself. */
type Outcome = { passkey: PasskeyRow } | { refused: 'challenge' | 'rejected' };

/** Only users who sign in here with a password (not a directory's or a provider's) have passkeys. */
const isLocal = (user: UserRow) => user.external === 0 && !!user.password;

/**
 * What the audit trail keeps of a passkey: which one and its name, never its credential id,
 * public key or counter.
 */
const audited = (row: Pick<PasskeyRow, 'id' | 'name' | 'created'>) => ({
  id: row.id,
  name: row.name,
  created: row.created,
});

const userHandleOf = (userId: number) => Buffer.from(`gantry-user-${userId}`).toString('base64url');

/**
 * Passkeys (WebAuthn): registering, naming and removing one's own, and answering with one at
 * sign-in, as the second step after the password or instead of the password altogether.
 * Challenges live in the database (any node can check an answer), are bound to the user, the
 * session or the browser they were handed to, expire after PASSKEY_CHALLENGE_MS and are spent
 * by the first answer, right or wrong.
 */
export class PasskeysService {
  constructor(
    private readonly repo: PasskeysRepository,
    private readonly users: UsersService,
    private readonly auth: AuthService,
    private readonly events: EventsService,
    private readonly clock: Clock,
    private readonly throttle: LoginThrottle,
    /** GANTRY_WEB_HOST: where the console is, which the passkeys are bound to; else the request's own origin. */
    private readonly webHost: string,
    /** Checks a TOTP code of the user (a proof for removing a passkey). */
    private readonly checkTotpCode: (userId: number, code: string) => Promise<boolean>,
  ) {}

  /** Where passkeys added, renamed and removed are recorded (the composition root wires the audit trail in). */
  audit: AuditRecorder = noAudit;

  /** Whether the user has a passkey: then sign-in asks for a second step, and the two-factor policy is met. */
  hasAny(userId: number): Promise<boolean> {
    return this.repo.hasAny(userId);
  }

  async list(user: UserRow): Promise<Passkey[]> {
    return (await this.repo.listByUser(user.id)).map(presentPasskey);
  }

  /**
   * Registration options, after a proof that it is the user (as for removing one): a new way in
   * must not be added by whoever holds an open session.
   */
  async registrationOptions(user: UserRow, proof: PasskeyProof, origin: string): Promise<PasskeyOptions> {
    if (!isLocal(user))
      throw new ForbiddenError('Only users who sign in with a password here can add passkeys', {
        code: ErrorCodes.passkeyLocalOnly,
      });
    await this.checkProof(user, proof, origin);
    const existing = await this.repo.listByUser(user.id);
    const options = await ceremony.registrationOptions(this.rp(origin), user, existing);
    await this.storeChallenge(options.challenge, 'register', user.id, null);
    return options;
  }

  async register(user: UserRow, name: string, response: RegistrationResponse, origin: string): Promise<Passkey> {
    if (!isLocal(user))
      throw new ForbiddenError('Only users who sign in with a password here can add passkeys', {
        code: ErrorCodes.passkeyLocalOnly,
      });
    const challenge = challengeOf(response.response.clientDataJSON);
    if (!challenge || !(await this.takeChallenge(challenge, { purpose: 'register', user: user.id, binding: null })))
      throw challengeInvalid();
    const credential = await ceremony.verifyRegistration(this.rp(origin), challenge, response);
    if (!credential) throw rejected();
    if (await this.repo.findByCredentialId(credential.credential_id)) {
      throw new ConflictError('This passkey is already registered', { code: ErrorCodes.passkeyRejected });
    }
    const id = await this.repo.insert({
      user_id: user.id,
      name,
      created: this.clock.now().toISOString(),
      ...credential,
    });
    await this.record(user, `Passkey ${name} added for ${user.username}`);
    const row = (await this.repo.find(user.id, id))!;
    await this.audit.record({ action: 'create', objectType: 'passkey', objectId: id, after: audited(row) });
    return presentPasskey(row);
  }

  async rename(user: UserRow, id: number, name: string): Promise<void> {
    const before = await this.repo.find(user.id, id);
    if (!before || !(await this.repo.rename(user.id, id, name))) throw notFound();
    await this.audit.record({
      action: 'update',
      objectType: 'passkey',
      objectId: id,
      before: audited(before),
      after: audited({ ...before, name }),
    });
  }

  /**
   * Removing one's passkey takes the current password, a current TOTP code or another answer of a
   * passkey (a session left open or stolen is not enough); wrong proofs count like failed sign-ins.
   */
  async remove(user: UserRow, id: number, proof: PasskeyProof, origin: string): Promise<void> {
    const passkey = await this.repo.find(user.id, id);
    if (!passkey) throw notFound();
    await this.checkProof(user, proof, origin);
    if (!(await this.repo.delete(user.id, id))) throw notFound();
    await this.record(user, `Passkey ${passkey.name} removed for ${user.username}`);
    await this.audit.record({ action: 'delete', objectType: 'passkey', objectId: id, before: audited(passkey) });
  }

  /** A challenge for proving it is the user (removing a passkey), answered by one of their passkeys. */
  async proofOptions(user: UserRow, origin: string): Promise<PasskeyOptions> {
    const options = await ceremony.authenticationOptions(this.rp(origin), await this.repo.listByUser(user.id));
    await this.storeChallenge(options.challenge, 'proof', user.id, null);
    return options;
  }

  /** The second sign-in step's challenge, bound to the session that waits for it. */
  async secondFactorOptions(session: string, origin: string): Promise<PasskeyOptions> {
    const identity = await this.auth.resolveSession(session);
    if (!identity || identity.verified) throw new UnauthorizedError();
    const options = await ceremony.authenticationOptions(this.rp(origin), await this.repo.listByUser(identity.user.id));
    await this.storeChallenge(options.challenge, 'second-factor', identity.user.id, sessionIdOf(session));
    return options;
  }

  /** The second sign-in step with a passkey: counted like a code, and marks the session verified. */
  async secondFactor(session: string, response: AuthenticationResponse, origin: string, client: Client): Promise<void> {
    await this.auth.secondStep(
      session,
      client,
      ['The passkey was not accepted', ErrorCodes.passkeyRejected],
      async (user) => {
        const outcome = await this.answer(
          response,
          origin,
          { purpose: 'second-factor', user: user.id, binding: sessionIdOf(session) },
          user.id,
        );
        return 'passkey' in outcome;
      },
    );
  }

  /**
   * Passwordless sign-in: a challenge for any of the passkeys on this site (discoverable
   * credentials), bound to a value the browser keeps in a cookie (`browser`).
   */
  async signInOptions(origin: string): Promise<{ options: PasskeyOptions; browser: string }> {
    const browser = randomToken(32);
    const options = await ceremony.authenticationOptions(this.rp(origin), undefined);
    await this.storeChallenge(options.challenge, 'sign-in', null, sha256(browser));
    return { options, browser };
  }

  /**
   * Signs in with a passkey alone (it verified its user: PIN or biometrics) and opens a fully
   * verified session. A refused answer counts toward the sign-in limits of the address and, when
   * the passkey is known, of its account.
   */
  async signIn(
    response: AuthenticationResponse,
    browser: string | undefined,
    origin: string,
    client: Client,
  ): Promise<string> {
    const known = await this.repo.findByCredentialId(response.id);
    const owner = known ? await this.users.findById(known.user_id) : undefined;
    const keys = [...(owner ? [throttleKeys.account(owner)] : []), throttleKeys.address(client.ip)];
    const result: { outcome?: Outcome } = {};
    await this.throttle.attempt(keys, async () => {
      if (!browser || !owner || !isLocal(owner)) {
        result.outcome = { refused: 'rejected' };
        // The challenge is spent all the same.
        const challenge = challengeOf(response.response.clientDataJSON);
        if (challenge) await this.repo.takeChallenge(sha256(challenge));
        return false;
      }
      // Handed out before anyone was known: the challenge names no user.
      result.outcome = await this.answer(
        response,
        origin,
        { purpose: 'sign-in', user: null, binding: sha256(browser) },
        owner.id,
      );
      return 'passkey' in result.outcome;
    });
    const outcome = result.outcome!;
    if ('refused' in outcome) {
      throw outcome.refused === 'challenge'
        ? new UnauthorizedError('The passkey challenge is unknown, used or expired: start again', {
            code: ErrorCodes.passkeyChallengeInvalid,
          })
        : new UnauthorizedError('The passkey was not accepted', { code: ErrorCodes.passkeyRejected });
    }
    return this.auth.openSession(outcome.passkey.user_id, client, true);
  }

  private async checkProof(user: UserRow, proof: PasskeyProof, origin: string): Promise<void> {
    const { password, passcode, assertion } = proof;
    if (password) {
      const ok = await this.throttle.attempt(
        [throttleKeys.account(user), throttleKeys.address(proof.ip)],
        async () => isLocal(user) && (await verifyPassword(password, user.password!)),
      );
      if (!ok)
        throw new ValidationError(Messages.incorrectCurrentPassword, {
          code: ErrorCodes.currentPasswordIncorrect,
          field: 'password',
        });
      return;
    }
    const keys = [throttleKeys.secondFactor(user), throttleKeys.address(proof.ip)];
    if (passcode) {
      if (!(await this.throttle.attempt(keys, () => this.checkTotpCode(user.id, passcode.trim())))) {
        throw new ValidationError(Messages.incorrectVerificationCode, {
          code: ErrorCodes.incorrectVerificationCode,
          field: 'passcode',
        });
      }
      return;
    }
    if (assertion) {
      const result: { outcome?: Outcome } = {};
      await this.throttle.attempt(keys, async () => {
        result.outcome = await this.answer(
          assertion,
          origin,
          { purpose: 'proof', user: user.id, binding: null },
          user.id,
        );
        return 'passkey' in result.outcome;
      });
      const outcome = result.outcome!;
      if ('refused' in outcome)
        throw outcome.refused === 'challenge' ? challengeInvalid('assertion') : rejected('assertion');
      return;
    }
    throw new ValidationError('Enter your current password, a current verification code or use a passkey', {
      code: ErrorCodes.passkeyProofRequired,
    });
  }

  /**
   * Checks an answer by a passkey of `userId` to a challenge handed out as `expected` says: the
   * challenge is spent first, then the signature, origin, relying party, user verification and
   * counter are checked, and the new counter stored only if no other answer moved it meanwhile.
   */
  private async answer(
    response: AuthenticationResponse,
    origin: string,
    expected: ChallengeFor,
    userId: number,
  ): Promise<Outcome> {
    const challenge = challengeOf(response.response.clientDataJSON);
    if (!challenge || !(await this.takeChallenge(challenge, expected))) return { refused: 'challenge' };
    const passkey = await this.repo.findByCredentialId(response.id);
    if (!passkey || passkey.user_id !== userId) return { refused: 'rejected' };
    const handle = response.response.userHandle;
    if (handle && handle !== userHandleOf(userId)) return { refused: 'rejected' };
    const counter = await ceremony.verifyAuthentication(this.rp(origin), challenge, response, passkey);
    if (counter === undefined) return { refused: 'rejected' };
    if (!(await this.repo.markUsed(passkey.id, passkey.counter, counter, this.clock.now().toISOString())))
      return { refused: 'rejected' };
    return { passkey };
  }

  private rp(origin: string) {
    return relyingPartyOf(this.webHost || origin);
  }

  private async storeChallenge(
    challenge: string,
    purpose: Purpose,
    userId: number | null,
    binding: string | null,
  ): Promise<void> {
    const now = this.clock.now();
    await this.repo.insertChallenge(
      {
        id: sha256(challenge),
        purpose,
        user_id: userId,
        binding,
        expires: new Date(now.getTime() + PASSKEY_CHALLENGE_MS).toISOString(),
      },
      now.toISOString(),
    );
  }

  /** Spends the challenge; answers whether it was handed out for this purpose, user and binding, and is still fresh. */
  private async takeChallenge(challenge: string, expected: ChallengeFor): Promise<boolean> {
    const row = await this.repo.takeChallenge(sha256(challenge));
    if (!row) return false;
    return (
      row.purpose === expected.purpose &&
      row.user_id === expected.user &&
      row.binding === expected.binding &&
      row.expires > this.clock.now().toISOString()
    );
  }

  private record(user: UserRow, description: string): Promise<void> {
    return this.events.record({ projectId: null, userId: user.id, objectType: 'user', objectId: user.id, description });
  }
}

const notFound = () => new NotFoundError('Passkey not found', { code: ErrorCodes.passkeyNotFound });
const challengeInvalid = (field = 'response') =>
  new ValidationError('The passkey challenge is unknown, used or expired: start again', {
    code: ErrorCodes.passkeyChallengeInvalid,
    field,
  });
const rejected = (field = 'response') =>
  new ValidationError('The passkey was not accepted', { code: ErrorCodes.passkeyRejected, field });
