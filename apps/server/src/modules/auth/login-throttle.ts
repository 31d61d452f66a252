import { Messages } from '@gantry/contracts';
import type { Clock } from '../../platform/clock.js';
import { TooManyRequestsError } from '../../platform/errors.js';
import type { AuthFailuresRepository } from './auth-failures.repository.js';

/** Failures are forgotten after this long without another one. */
export const FAILURE_WINDOW_MS = 15 * 60_000;
/** From this many failures each further attempt waits a little longer... */
export const SLOW_AFTER = 3;
/** ...and from this many it is refused until the window passes. */
export const REFUSE_AFTER = 10;
const STEP_DELAY_MS = 250;

/**
 * Slows, then refuses, repeated failed sign-ins per account and per client address, so
 * passwords cannot be guessed at speed from one place or against one account.
 */
export class LoginThrottle {
  constructor(
    private readonly repo: AuthFailuresRepository,
    private readonly clock: Clock,
    private readonly sleep: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)),
  ) {}

  /** Throws 429 when any key is over the limit; otherwise waits in proportion to past failures. */
  async before(keys: string[]): Promise<void> {
    const cutoff = new Date(this.clock.now().getTime() - FAILURE_WINDOW_MS).toISOString();
    let worst = 0;
    for (const key of keys) {
      const row = await this.repo.find(key);
      if (row && row.last_at >= cutoff) worst = Math.max(worst, row.count);
    }
    if (worst >= REFUSE_AFTER) throw new TooManyRequestsError(Messages.tooManyAttempts);
    if (worst >= SLOW_AFTER) await this.sleep(Math.min((worst - SLOW_AFTER + 1) * STEP_DELAY_MS, 2000));
  }

  async failed(keys: string[]): Promise<void> {
    const now = this.clock.now();
    const windowStart = new Date(now.getTime() - FAILURE_WINDOW_MS).toISOString();
    for (const key of keys) await this.repo.record(key, now.toISOString(), windowStart);
  }

  async succeeded(accountKey: string): Promise<void> {
    await this.repo.clear(accountKey);
  }
}
