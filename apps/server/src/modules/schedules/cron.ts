import { Cron } from 'croner';

/** A cron expression's problem, or null when it is valid (five fields, evaluated in UTC). */
export function cronProblem(expr: string): string | null {
  const fields = expr.trim().split(/\s+/);
  if (fields.length !== 5) return 'Cron must have five fields: minute hour day month weekday';
  try {
    new Cron(expr, { timezone: 'UTC', paused: true });
    return null;
  } catch (e) {
    return `Invalid cron: ${(e as Error).message}`;
  }
}

/** The next due time strictly after `after`, in UTC. */
export function nextDue(expr: string, after: Date): Date | null {
  return new Cron(expr, { timezone: 'UTC', paused: true }).nextRun(after);
}

/** The latest due time in (since, now], or null when none fell in that span. */
export function latestDue(expr: string, since: Date, now: Date): Date | null {
  const cron = new Cron(expr, { timezone: 'UTC', paused: true });
  let due: Date | null = null;
  let cursor = cron.nextRun(since);
  // Bounded: after a long downtime only the latest missed time fires, and finding it is cheap.
  for (let i = 0; cursor && cursor <= now && i < 100_000; i++) {
    due = cursor;
    cursor = cron.nextRun(cursor);
  }
  return due;
}
