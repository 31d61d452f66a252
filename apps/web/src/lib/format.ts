import i18n from 'i18next';

// Dates and numbers follow the console's language (i18next's `language`), not the browser's.
// Components call these while rendering and use useTranslation(), so they redraw on a switch.
// Formatters are costly to build and the task log formats one time per row: keep one per kind.
const cache = new Map<string, Intl.DateTimeFormat | Intl.NumberFormat>();

function cached<F extends Intl.DateTimeFormat | Intl.NumberFormat>(kind: string, make: (lng: string) => F): F {
  const key = `${i18n.language}|${kind}`;
  let f = cache.get(key) as F | undefined;
  if (!f) {
    f = make(i18n.language);
    cache.set(key, f);
  }
  return f;
}

type DateInput = string | number | Date;

/** Date and time as the language writes them: "21.3.2025, 01:05:09" in German, "3/21/2025, 1:05:09 AM" in English. */
export function formatDateTime(value: DateInput): string {
  // All fields numeric, as toLocaleString does: each language then pads (or not) its own way.
  return cached('datetime', (lng) => new Intl.DateTimeFormat(lng, { year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' })).format(new Date(value));
}

/** A time of day on the 24-hour clock, seconds included (task log lines). */
export function formatTime(value: DateInput): string {
  return cached('time', (lng) => new Intl.DateTimeFormat(lng, { hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' })).format(new Date(value));
}

/** A calendar day given as `YYYY-MM-DD`, short: "21 Mar", "21. März", "3月21日". */
export function formatDay(isoDay: string): string {
  // The day is a UTC date (see stats): format it in UTC so no time zone moves it.
  return cached('day', (lng) => new Intl.DateTimeFormat(lng, { day: 'numeric', month: 'short', timeZone: 'UTC' })).format(new Date(`${isoDay}T00:00:00Z`));
}

/** A number with the language's separators; `fractionDigits` fixes the decimals shown. */
export function formatNumber(value: number, fractionDigits?: number): string {
  return cached(`number|${fractionDigits ?? ''}`, (lng) =>
    new Intl.NumberFormat(lng, fractionDigits === undefined ? {} : { minimumFractionDigits: fractionDigits, maximumFractionDigits: fractionDigits }),
  ).format(value);
}

/** A length of time in minutes and seconds, narrow: "42s", "3m 5s" in English; "3 Min. 5 Sek." in German. */
export function formatDuration(totalSeconds: number): string {
  const s = Math.max(0, Math.round(totalSeconds));
  const unit = (u: 'minute' | 'second') => cached(`unit|${u}`, (lng) => new Intl.NumberFormat(lng, { style: 'unit', unit: u, unitDisplay: 'narrow' }));
  if (s < 60) return unit('second').format(s);
  return `${unit('minute').format(Math.floor(s / 60))} ${unit('second').format(s % 60)}`;
}
