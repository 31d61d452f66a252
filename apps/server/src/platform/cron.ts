import { ErrorCodes, type ErrorCode } from '@gantry/contracts';
import { Cron } from 'croner';

/** Why a cron expression is invalid in the parser's own words, or null when it is valid (five fields, UTC). */
export function cronReason(expr: string): string | null {
  if (expr.trim().split(/\s+/).length !== 5) return 'must have five fields: minute hour day month weekday';
  try {
    new Cron(expr, { timezone: 'UTC', paused: true });
    return null;
  } catch (e) {
    return (e as Error).message.replace(/^CronPattern:\s*/, '');
  }
}

/** The stable code of a cron refusal, by its reason (cronReason) or its sentence (cronProblem). */
export function cronErrorCode(text: string): ErrorCode {
  return text.includes('must have five fields') ? ErrorCodes.cronFiveFields : ErrorCodes.cronInvalid;
}

/** A cron expression's problem as a sentence for forms, or null when it is valid. */
export function cronProblem(expr: string): string | null {
  const reason = cronReason(expr);
  if (reason === null) return null;
  return reason.startsWith('must have') ? `Cron ${reason}` : `Invalid cron: ${reason}`;
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
