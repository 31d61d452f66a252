import { describe, expect, it } from 'vitest';
import { buildCron, parseCron, type CronBuild } from './schedules.js';

const base: CronBuild = { timing: 'daily', minute: 0, hour: 0, day: 1, month: 1, weekday: 1 };

describe('parseCron', () => {
  it('decodes what the builder makes, and building it again gives the same expression', () => {
    const cases: Array<[string, Partial<CronBuild>]> = [
      ['30 3 * * *', { timing: 'daily', minute: 30, hour: 3 }],
      ['5 * * * *', { timing: 'hourly', minute: 5 }],
      ['30 9 * * 0', { timing: 'weekly', minute: 30, hour: 9, weekday: 0 }],
      ['0 23 31 * *', { timing: 'monthly', minute: 0, hour: 23, day: 31 }],
      ['55 12 15 6 *', { timing: 'yearly', minute: 55, hour: 12, day: 15, month: 6 }],
    ];
    for (const [expr, want] of cases) {
      const got = parseCron(expr, base);
      expect(got).toMatchObject(want);
      expect(buildCron(got!)).toBe(expr);
    }
    expect(parseCron('  30   3 * * * ', base)).toMatchObject({ timing: 'daily', minute: 30, hour: 3 });
  });

  it('keeps the choices an expression does not fix', () => {
    expect(parseCron('0 4 * * *', { ...base, weekday: 5, day: 9 })).toEqual({ timing: 'daily', minute: 0, hour: 4, day: 9, month: 1, weekday: 5 });
  });

  it('refuses what the builder cannot show exactly', () => {
    for (const expr of ['* * * * *', '*/7 2-5 * * 1,3', '*/5 * * * *', '7 3 * * *', '03 3 * * *', '0 24 * * *', '0 3 * * 7', '0 3 1 * 1', '0 3 * 6 *', '0 * * * 1', '0 3 * * * *', '', '@daily', '0 3 L * *']) {
      expect(parseCron(expr, base), expr).toBeNull();
    }
  });
});
