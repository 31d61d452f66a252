import { Messages } from '@gantry/contracts';
import type { Clock } from '../../platform/clock.js';
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
 */
export class LoginThrottle {
  constructor(
    private readonly repo: AuthFailuresRepository,
    private readonly events: EventsService,
    private readonly clock: Clock,
    private readonly sleep: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)),
  ) {}

  /**
   * Throws 429 (with the seconds until the lock ends) when any key is locked; otherwise waits in
   * proportion to past failures.
   */
  async before(keys: ThrottleKey[]): Promise<void> {
    const now = this.clock.now().getTime();
    const cutoff = new Date(now - FAILURE_WINDOW_MS).toISOString();
    let delay = 0;
    let lockedFor: number | null = null;
    for (const k of keys) {
      const row = await this.repo.find(k.key);
      if (!row || row.last_at < cutoff) continue;
      if (row.count >= k.refuseAfter) {
        const left = Math.ceil((Date.parse(row.last_at) + FAILURE_WINDOW_MS - now) / 1000);
        lockedFor = Math.max(lockedFor ?? 1, left);
      } else if (row.count >= k.slowAfter) {
        delay = Math.max(delay, Math.min((row.count - k.slowAfter + 1) * STEP_DELAY_MS, MAX_DELAY_MS));
      }
    }
    if (lockedFor !== null) throw new TooManyRequestsError(Messages.tooManyAttempts, lockedFor);
    if (delay > 0) await this.sleep(delay);
  }

  /** Counts a failure on every key; a key this failure locks leaves one line in the activity log. */
  async failed(keys: ThrottleKey[]): Promise<void> {
    const now = this.clock.now();
    const windowStart = new Date(now.getTime() - FAILURE_WINDOW_MS).toISOString();
    for (const k of keys) {
      const count = await this.repo.record(k.key, now.toISOString(), windowStart);
      if (count === k.refuseAfter && k.lockEvent) {
        await this.events.record({ projectId: null, objectType: 'user', ...k.lockEvent });
      }
    }
  }

  /** A success forgets the account's failures (never the address's: a spray may include own accounts). */
  async succeeded(key: ThrottleKey): Promise<void> {
    await this.repo.clear(key.key);
  }
}
