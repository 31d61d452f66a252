import i18n from 'i18next';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { formatDateTime, formatDay, formatDuration, formatList, formatNumber, formatTime } from './format';

// Dictionaries do not matter here, only the language: i18next without resources is enough.
beforeAll(() => i18n.init({ lng: 'en', resources: {} }));

const at = new Date(2025, 2, 21, 14, 5, 9);

describe('format', () => {
  it('follows the console language, not the browser, and changes with it', async () => {
    await i18n.changeLanguage('en');
    expect(formatDateTime(at)).toBe('3/21/2025, 2:05:09 PM');
    expect(formatNumber(1234.5)).toBe('1,234.5');
    await i18n.changeLanguage('de');
    expect(formatDateTime(at)).toBe('21.3.2025, 14:05:09');
    expect(formatNumber(1234.5)).toBe('1.234,5');
    expect(formatNumber(3.14159, 1)).toBe('3,1');
    await i18n.changeLanguage('ja');
    expect(formatDateTime(at.toISOString())).toBe('2025/3/21 14:05:09');
  });

  it('writes log times on the 24-hour clock in every language', async () => {
    await i18n.changeLanguage('en');
    expect(formatTime(at)).toBe('14:05:09');
  });

  it('shows a UTC calendar day as that day whatever the time zone', async () => {
    await i18n.changeLanguage('en');
    expect(formatDay('2025-03-01')).toBe('Mar 1');
    await i18n.changeLanguage('de');
    expect(formatDay('2025-03-01')).toBe('1. März');
  });

  it('writes durations from the largest unit down to seconds, as the language writes them', async () => {
    // Node has no Intl.DurationFormat: these come from the fallback, and are what Chromium's
    // DurationFormat writes for the same durations.
    await i18n.changeLanguage('en');
    expect(formatDuration(42.4)).toBe('42s');
    expect(formatDuration(163)).toBe('2m 43s');
    expect(formatDuration(180)).toBe('3m 0s');
    expect(formatDuration(3605)).toBe('1h 0m 5s');
    expect(formatDuration(-1)).toBe('0s');
    await i18n.changeLanguage('de');
    expect(formatDuration(42)).toBe('42 Sek.');
    expect(formatDuration(163)).toBe('2 Min., 43 Sek.');
    expect(formatDuration(3763)).toBe('1h, 2 Min. und 43 Sek.');
    await i18n.changeLanguage('ja');
    expect(formatDuration(163)).toBe('2m43s');
    expect(formatDuration(3763)).toBe('1h2m43s');
    await i18n.changeLanguage('ru');
    expect(formatDuration(42)).toBe('42 с');
    expect(formatDuration(163)).toBe('2 мин 43 с');
    expect(formatDuration(3763)).toBe('1 ч 2 мин 43 с');
  });

  it('lists items as the language does', async () => {
    await i18n.changeLanguage('en');
    expect(formatList(['web', 'db', 'cache'])).toBe('web, db, and cache');
    expect(formatList(['web', 'db'], 'disjunction')).toBe('web or db');
    await i18n.changeLanguage('de');
    expect(formatList(['web', 'db', 'cache'])).toBe('web, db und cache');
    await i18n.changeLanguage('ja');
    expect(formatList(['web', 'db', 'cache'])).toBe('web、db、cache');
    await i18n.changeLanguage('ru');
    expect(formatList(['web', 'db', 'cache'])).toBe('web, db и cache');
  });
});

describe('durations where the browser has Intl.DurationFormat', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.resetModules();
  });

  it('are written by it, every unit from the largest shown', async () => {
    const made: { lng: string; options: unknown; formatted: unknown[] }[] = [];
    class DurationFormat {
      private readonly made: (typeof made)[number];
      constructor(lng: string, options: unknown) {
        this.made = { lng, options, formatted: [] };
        made.push(this.made);
      }
      format(d: unknown) {
        this.made.formatted.push(d);
        return 'written';
      }
    }
    vi.stubGlobal('Intl', { ...Intl, DurationFormat });
    vi.resetModules();
    const fresh = (await import('i18next')).default;
    await fresh.init({ lng: 'de', resources: {} });
    const { formatDuration: format } = await import('./format');
    expect(format(3605)).toBe('written');
    expect(made).toEqual([
      { lng: 'de', options: { style: 'narrow', hoursDisplay: 'always', minutesDisplay: 'always', secondsDisplay: 'always' }, formatted: [{ hours: 1, minutes: 0, seconds: 5 }] },
    ]);
  });
});
