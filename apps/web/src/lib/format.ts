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

type DurationUnit = 'hour' | 'minute' | 'second';
type DurationFields = Partial<Record<'hours' | 'minutes' | 'seconds', number>>;

/** Intl.DurationFormat (not yet in TypeScript's lib, nor in every browser). */
type DurationFormatConstructor = new (
  lng: string,
  options: { style: 'narrow' } & Partial<Record<'hoursDisplay' | 'minutesDisplay' | 'secondsDisplay', 'always'>>,
) => { format(duration: DurationFields): string };

const durationFormat = (Intl as unknown as { DurationFormat?: DurationFormatConstructor }).DurationFormat;
const FIELD_OF: Record<DurationUnit, keyof DurationFields> = { hour: 'hours', minute: 'minutes', second: 'seconds' };
const durationCache = new Map<string, (units: [DurationUnit, number][]) => string>();

/**
 * The language's way of writing a few units of time, narrow: Intl.DurationFormat where the
 * browser has it; elsewhere what it does by hand (each unit through Intl.NumberFormat, joined as
 * a unit list by Intl.ListFormat), which gives the same text.
 */
function durationWriter(shown: DurationUnit[]): (units: [DurationUnit, number][]) => string {
  const key = `${i18n.language}|${shown.join()}`;
  let write = durationCache.get(key);
  if (!write) {
    const lng = i18n.language;
    if (durationFormat) {
      // Every unit shown, zeros included ("1h 0m 5s"), as the units below the largest always are.
      const always = Object.fromEntries(shown.map((u) => [`${FIELD_OF[u]}Display`, 'always']));
      const f = new durationFormat(lng, { style: 'narrow', ...always });
      write = (units) => f.format(Object.fromEntries(units.map(([u, n]) => [FIELD_OF[u], n])));
    } else {
      const list = new Intl.ListFormat(lng, { type: 'unit', style: 'narrow' });
      const numbers = new Map(shown.map((u) => [u, new Intl.NumberFormat(lng, { style: 'unit', unit: u, unitDisplay: 'narrow' })]));
      write = (units) => list.format(units.map(([u, n]) => numbers.get(u)!.format(n)));
    }
    durationCache.set(key, write);
  }
  return write;
}

/**
 * A length of time, from its largest unit down to seconds, narrow: "42s", "2m 43s", "1h 0m 5s" in
 * English; "2 Min., 43 Sek." in German; "2m43s" in Japanese; "2 мин 43 с" in Russian.
 */
export function formatDuration(totalSeconds: number): string {
  const s = Math.max(0, Math.round(totalSeconds));
  const all: [DurationUnit, number][] = [
    ['hour', Math.floor(s / 3600)],
    ['minute', Math.floor((s % 3600) / 60)],
    ['second', s % 60],
  ];
  const units = all.slice(s >= 3600 ? 0 : s >= 60 ? 1 : 2);
  return durationWriter(units.map(([u]) => u))(units);
}

const listCache = new Map<string, Intl.ListFormat>();

/** Items as the language lists them: "a, b, and c"; "a, b und c"; "a、b、c". */
export function formatList(items: readonly string[], type: 'conjunction' | 'disjunction' = 'conjunction'): string {
  const key = `${i18n.language}|list|${type}`;
  let f = listCache.get(key);
  if (!f) {
    f = new Intl.ListFormat(i18n.language, { type, style: 'long' });
    listCache.set(key, f);
  }
  return f.format(items);
}
