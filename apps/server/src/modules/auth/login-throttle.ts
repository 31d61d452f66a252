import { Messages, ErrorCodes } from '@gantry/contracts';
import type { Clock } from '../../platform/clock.js';
import { noAudit, type AuditRecorder } from '../audit/audit.port.js';
import { TooManyRequestsError } from '../../platform/errors.js';
import type { EventsService } from '../events/events.service.js';
import type { AuthFailuresRepository } from './auth-failures.repository.js';

/** Failures are forgotten this long after the last one; a lock lasts as long. */
export const FAILURE_WINDOW_MS = 15 * 60_000;
/** Per account: from this many failures each further attempt waits a little longer... */
export const SLOW_AFTER = 3;
/** ...and from this many the account is refused (the right password too) until the window passes. */
export const REFUSE_AFTER = 10;
/**
 * Per client address, over all accounts: much higher, so that one person's typos never lock out
 * everyone behind the same address (an office, a proxy), while spraying many accounts still stops.
 */
export const ADDRESS_SLOW_AFTER = 30;
export const ADDRESS_REFUSE_AFTER = 100;
const STEP_DELAY_MS = 250;
const MAX_DELAY_MS = 2000;
const WINDOW_MINUTES = FAILURE_WINDOW_MS / 60_000;

/** One failure counter: what it counts, its limits, and what the activity log says when it locks. */
export interface ThrottleKey {
  key: string;
  slowAfter: number;
  refuseAfter: number;
  /**
   * A success forgets every failure counted here (the account's, once its owner proved who they
   * are); otherwise a success only gives back its own attempt (an address's count stays: a spray
   * may include own accounts).
   */
  forgetOnSuccess?: boolean;
  /** Recorded once, by the failure that reaches `refuseAfter`; none for a login that names no user. */
  lockEvent?: { userId: number | null; objectId: number | null; description: string };
}

interface Named {
  id: number;
  username: string;
}

/** The counters sign-in uses; an account is counted by user id, whichever login names it. */
export const throttleKeys = {
  account: (user: Named): ThrottleKey => ({
    key: `user:${user.id}`,
    slowAfter: SLOW_AFTER,
    refuseAfter: REFUSE_AFTER,
    forgetOnSuccess: true,
    lockEvent: {
      userId: user.id,
      objectId: user.id,
      description: `Sign-in locked for ${user.username} for ${WINDOW_MINUTES} minutes after ${REFUSE_AFTER} failed attempts`,
    },
  }),
  /** A login that names no user: still limited, so probing names is slowed like guessing passwords. */
  unknownLogin: (login: string): ThrottleKey => ({
    key: `login:${login.toLowerCase()}`,
    slowAfter: SLOW_AFTER,
    refuseAfter: REFUSE_AFTER,
  }),
  secondFactor: (user: Named): ThrottleKey => ({
    key: `second-factor:${user.id}`,
    slowAfter: SLOW_AFTER,
    refuseAfter: REFUSE_AFTER,
    forgetOnSuccess: true,
    lockEvent: {
      userId: user.id,
      objectId: user.id,
      description: `Sign-in locked for ${user.username} for ${WINDOW_MINUTES} minutes after ${REFUSE_AFTER} wrong verification codes`,
    },
  }),
  address: (ip: string): ThrottleKey => ({
    key: `ip:${ip}`,
    slowAfter: ADDRESS_SLOW_AFTER,
    refuseAfter: ADDRESS_REFUSE_AFTER,
    lockEvent: {
      userId: null,
      objectId: null,
      description: `Sign-in locked for address ${ip} for ${WINDOW_MINUTES} minutes after ${ADDRESS_REFUSE_AFTER} failed attempts`,
    },
  }),
};

/**
 * Slows, then refuses, repeated failed sign-ins per account and per client address, so
 * passwords cannot be guessed at speed from one place or against one account.
 *
 * Each attempt takes its place on every counter before its password or code is checked, in one
 * statement per counter: of many attempts sent at once, only as many as a limit allows are
 * checked, the others are refused without being looked at.
 */
export class LoginThrottle {
  constructor(
    private readonly repo: AuthFailuresRepository,
    private readonly events: EventsService,
    private readonly clock: Clock,
    private readonly sleep: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)),
  ) {}

  /** Where lockouts are recorded (the composition root wires the audit trail in). */
  audit: AuditRecorder = noAudit;

  /**
   * Runs `check` (the password or code comparison) as one counted attempt and answers its
   * verdict. Throws 429 (with the seconds until the lock ends) without running it when a key is
   * at its limit; otherwise waits in proportion to the attempts counted before. A failure stays
   * counted (the one reaching a limit leaves one line in the activity log); a success gives its
   * place back, or forgets the key's count; a `check` that throws gives its place back too.
   */
  async attempt(keys: ThrottleKey[], check: () => Promise<boolean>): Promise<boolean> {
    const now = this.clock.now();
    const windowStart = new Date(now.getTime() - FAILURE_WINDOW_MS).toISOString();
    const taken: { key: ThrottleKey; n: number }[] = [];
    let delay = 0;
    for (const k of keys) {
      const n = await this.repo.reserve(k.key, k.refuseAfter, now.toISOString(), windowStart);
      if (n === null) {
        await this.giveBack(taken.map((t) => t.key));
        throw new TooManyRequestsError(
          Messages.tooManyAttempts,
          { code: ErrorCodes.tooManyAttempts },
          await this.lockedFor(k, now.getTime()),
        );
      }
      taken.push({ key: k, n });
      const before = n - 1;
      if (before >= k.slowAfter)
        delay = Math.max(delay, Math.min((before - k.slowAfter + 1) * STEP_DELAY_MS, MAX_DELAY_MS));
    }
    let ok: boolean;
    try {
      if (delay > 0) await this.sleep(delay);
      ok = await check();
    } catch (e) {
      await this.giveBack(keys);
      throw e;
    }
    if (ok) {
      for (const k of keys) await (k.forgetOnSuccess ? this.repo.clear(k.key) : this.repo.release(k.key));
      return true;
    }
    for (const { key, n } of taken) {
      if (n === key.refuseAfter && key.lockEvent) {
        await this.events.record({ projectId: null, objectType: 'user', ...key.lockEvent });
        await this.audit.record({
          action: 'lockout',
          objectType: key.lockEvent.objectId === null ? 'address' : 'user',
          objectId: key.lockEvent.objectId,
          after: { reason: key.lockEvent.description },
          caller: { actorId: key.lockEvent.userId, authKind: 'session' },
        });
      }
    }
    return false;
  }

  private async giveBack(keys: ThrottleKey[]): Promise<void> {
    for (const k of keys) await this.repo.release(k.key);
  }

  /** Seconds until a locked key's window ends (at least 1). */
  private async lockedFor(k: ThrottleKey, now: number): Promise<number> {
    const row = await this.repo.find(k.key);
    if (!row) return 1;
    return Math.max(1, Math.ceil((Date.parse(row.last_at) + FAILURE_WINDOW_MS - now) / 1000));
  }
}
