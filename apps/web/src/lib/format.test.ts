import i18n from 'i18next';
import { beforeAll, describe, expect, it } from 'vitest';
import { formatDateTime, formatDay, formatDuration, formatNumber, formatTime } from './format';

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

  it('writes durations in minutes and seconds with the language units', async () => {
    await i18n.changeLanguage('en');
    expect(formatDuration(42.4)).toBe('42s');
    expect(formatDuration(185)).toBe('3m 5s');
    expect(formatDuration(-1)).toBe('0s');
    await i18n.changeLanguage('de');
    expect(formatDuration(185)).toBe('3 Min. 5 Sek.');
  });
});
