/** Waits between attempts: 10 s, 30 s, 1, 2, 5, 10, 30 min, then every hour. */
const BACKOFF_SECONDS = [10, 30, 60, 120, 300, 600, 1800];
const THEN_EVERY_SECONDS = 3600;
/** A delivery is retried until this long after it was queued (a receiver down for a day still gets it). */
export const RETRY_WINDOW_MS = 25 * 3600 * 1000;

/** The wait after `attempts` failed attempts (1 after the first). */
export function backoffMs(attempts: number): number {
  return (BACKOFF_SECONDS[attempts - 1] ?? THEN_EVERY_SECONDS) * 1000;
}

/** When to try again after `attempts` failures, or null when that is past the retry window. */
export function nextAttemptAt(created: Date, now: Date, attempts: number): Date | null {
  const next = new Date(now.getTime() + backoffMs(Math.max(1, attempts)));
  return next.getTime() > created.getTime() + RETRY_WINDOW_MS ? null : next;
}
