import { buildCron } from '@gantry/contracts';
import { describe, expect, it } from 'vitest';
import { cronProblem, latestDue, nextDue } from './cron.js';

describe('cron in UTC', () => {
  it('evaluates expressions in UTC whatever the server zone', () => {
    expect(nextDue('30 2 * * *', new Date('2026-03-01T02:29:59Z'))?.toISOString()).toBe('2026-03-01T02:30:00.000Z');
    expect(nextDue('0 0 1 1 *', new Date('2026-06-15T12:00:00Z'))?.toISOString()).toBe('2027-01-01T00:00:00.000Z');
    expect(nextDue('*/5 * * * *', new Date('2026-01-01T10:02:00Z'))?.toISOString()).toBe('2026-01-01T10:05:00.000Z');
  });

  it('finds the latest due time in a span, or none', () => {
    expect(latestDue('*/10 * * * *', new Date('2026-01-01T10:00:00Z'), new Date('2026-01-01T10:35:00Z'))?.toISOString()).toBe('2026-01-01T10:30:00.000Z');
    expect(latestDue('0 * * * *', new Date('2026-01-01T10:00:00Z'), new Date('2026-01-01T10:59:59Z'))).toBeNull();
  });

  it('rejects what is not a five-field cron', () => {
    expect(cronProblem('* * * * *')).toBeNull();
    expect(cronProblem('* * *')).toMatch(/five fields/);
    expect(cronProblem('61 * * * *')).toMatch(/Invalid cron/);
    expect(cronProblem('a b c d e')).toMatch(/Invalid cron/);
  });

  it.each([
    [{ timing: 'hourly', minute: 15, hour: 0, day: 1, month: 1, weekday: 0 }, '15 * * * *', '2026-05-05T10:20:00Z', '2026-05-05T11:15:00.000Z'],
    [{ timing: 'daily', minute: 30, hour: 4, day: 1, month: 1, weekday: 0 }, '30 4 * * *', '2026-05-05T10:20:00Z', '2026-05-06T04:30:00.000Z'],
    [{ timing: 'weekly', minute: 0, hour: 9, day: 1, month: 1, weekday: 1 }, '0 9 * * 1', '2026-05-05T10:20:00Z', '2026-05-11T09:00:00.000Z'],
    [{ timing: 'monthly', minute: 5, hour: 23, day: 31, month: 1, weekday: 0 }, '5 23 31 * *', '2026-05-05T10:20:00Z', '2026-05-31T23:05:00.000Z'],
    [{ timing: 'yearly', minute: 0, hour: 0, day: 25, month: 12, weekday: 0 }, '0 0 25 12 *', '2026-05-05T10:20:00Z', '2026-12-25T00:00:00.000Z'],
  ] as const)('the builder makes %o into %s, due next at %s', (build, expr, from, next) => {
    expect(buildCron(build)).toBe(expr);
    expect(nextDue(buildCron(build), new Date(from))?.toISOString()).toBe(next);
  });
});
