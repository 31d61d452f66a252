import { z } from 'zod';
import { coded, codedIssue, labelKey, type FieldLabel } from './coded.js';
import { ErrorCodes } from './errors.js';

/** Longest name (and other short single-line text) a form or the API takes. */
export const NAME_MAX = 255;
/** Longest description. */
export const DESCRIPTION_MAX = 4096;
/** Longest URL (repository URLs, webhooks). */
export const URL_MAX = 2048;

/** Longest secret of a key (private key, password, passphrase): 64 KiB, in UTF-8 bytes. */
export const SECRET_MAX_BYTES = 64 * 1024;
/** Most a variable group holds: its extra variables, environment variables and secret values together, 1 MiB in UTF-8 bytes. */
export const VARIABLE_GROUP_MAX_BYTES = 1024 * 1024;

/** The refusal of an empty field: '<thing> is required' (the spec's wording), code `field_required`. */
export function requiredMessage(thing: FieldLabel) {
  return coded(`${thing} is required`, ErrorCodes.fieldRequired, { label_key: labelKey(thing) });
}
/** requiredMessage as an issue a superRefine adds. */
export function requiredIssue(thing: FieldLabel) {
  return codedIssue(`${thing} is required`, ErrorCodes.fieldRequired, { label_key: labelKey(thing) });
}
const tooLong = (thing: FieldLabel, max: number) =>
  coded(`${thing} must be at most ${max} characters`, ErrorCodes.tooLong, { label_key: labelKey(thing), max });
const controlCharacters = (thing: FieldLabel) =>
  coded(`${thing} must not contain control characters`, ErrorCodes.controlCharacters, { label_key: labelKey(thing) });
const invisibleCharacters = (thing: FieldLabel) =>
  coded(`${thing} must not contain invisible or bidirectional control characters`, ErrorCodes.invisibleCharacters);

/** `bytes` as people read it: 65536 -> "64 KiB", 1048576 -> "1 MiB". */
export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}

/** Length of `s` in UTF-8 bytes (what a limit in KiB/MiB counts). */
export function utf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

/** The refusal of a value over `max` bytes, naming the field, with the stable code `too_large`. */
export function tooLarge(thing: FieldLabel, max: number) {
  return coded(`${thing} must be at most ${formatBytes(max)}`, ErrorCodes.tooLarge, { limit: formatBytes(max) });
}

/** A secret text (a key's password, passphrase or private key): at most SECRET_MAX_BYTES. */
export function secretText(thing: FieldLabel) {
  return z.string().refine((s) => utf8Length(s) <= SECRET_MAX_BYTES, tooLarge(thing, SECRET_MAX_BYTES));
}

/**
 * A trimmed single-line string that must not be empty: at most `max` characters and no control
 * characters (NUL included). The message follows the spec's '<thing> is required'.
 */
export function requiredString(thing: FieldLabel, max = NAME_MAX) {
  return requiredText(thing, max).refine((s) => !hasControlCharacters(s), controlCharacters(thing));
}

/**
 * The name of a resource (project, key, repository, inventory, variable group, template, schedule,
 * integration, view) or variable: a requiredString that also refuses invisible and
 * bidirectional-override characters, so the name a list shows is the name stored.
 */
export function requiredName(thing: FieldLabel, max = NAME_MAX) {
  return requiredString(thing, max).refine((s) => !hasInvisibleCharacters(s), invisibleCharacters(thing));
}

/**
 * Like requiredString without the control-character rule, for fields whose own check (a path, a
 * URL) already refuses control characters with a message that says what the value must be.
 */
export function requiredText(thing: FieldLabel, max = NAME_MAX) {
  const required = requiredMessage(thing);
  return z.string(required).trim().min(1, required).max(max, tooLong(thing, max));
}

/** A trimmed string of at most `max` characters (for fields whose own check refuses control characters). */
export function boundedText(thing: FieldLabel, max = NAME_MAX) {
  return z.string().trim().max(max, tooLong(thing, max));
}

/** A trimmed single-line string that may be empty (add `.default('')` or `.nullish()`). */
export function singleLine(thing: FieldLabel, max = NAME_MAX) {
  return z
    .string()
    .trim()
    .max(max, tooLong(thing, max))
    .refine((s) => !hasControlCharacters(s), controlCharacters(thing));
}

/**
 * Multi-line text (descriptions, inventories, scripts): tabs and line breaks are allowed, other
 * control characters (NUL above all, which PostgreSQL cannot store) are not.
 */
export function multiLine(thing: FieldLabel, max: number) {
  return z
    .string()
    .max(max, tooLong(thing, max))
    .refine((s) => !hasControlCharacters(s.replace(/[\t\n\r]/g, '')), controlCharacters(thing));
}

/** A description: up to DESCRIPTION_MAX characters, line breaks and tabs but no invisible characters, empty when not given. */
export function description(thing: FieldLabel = 'Description') {
  return multiLine(thing, DESCRIPTION_MAX)
    .refine((s) => !hasInvisibleCharacters(s.replace(/[\t\n\r]/g, '')), invisibleCharacters(thing))
    .default('');
}

/** An optional integer that is 0 or greater; empty input (form or API) means 0. */
export function nonNegativeIntegerOrZero() {
  return z.preprocess(
    (v) => {
      if (v === '' || v === null || v === undefined) return 0;
      if (typeof v === 'string') return /^-?\d+$/.test(v.trim()) ? Number(v.trim()) : Number.NaN;
      return v;
    },
    z
      .number(coded('Must be an integer', ErrorCodes.mustBeInteger))
      .int(coded('Must be an integer', ErrorCodes.mustBeInteger))
      .min(0, coded('Must be 0 or greater', ErrorCodes.mustBeNonNegative)),
  );
}

const invalidId = coded('Invalid id', ErrorCodes.invalidId);
export const idParamSchema = z.coerce.number(invalidId).int().positive(invalidId);

/** Control characters (newlines, NUL, escape...) have no place in names, URLs, refs or paths. */
export function hasControlCharacters(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c === 0x7f) return true;
  }
  return false;
}

/**
 * Characters that show nothing or change how the text around them is drawn: format characters
 * (Cf: bidirectional overrides and isolates U+202A-U+202E and U+2066-U+2069, zero-width
 * U+200B-U+200F and U+2060-U+2064, U+FEFF, the soft hyphen U+00AD...), control characters (Cc,
 * C1 included), line and paragraph separators, and the blank fillers U+034F, U+115F, U+1160,
 * U+3164, U+FFA0. A name holding one can look like another name, or like something else.
 */
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\u034F\u115F\u1160\u3164\uFFA0]/u;

/** Whether `s` holds an invisible or bidirectional-control character (see INVISIBLE). */
export function hasInvisibleCharacters(s: string): boolean {
  return INVISIBLE.test(s);
}

/**
 * For an object's superRefine: whether its check that reads these fields may run although the
 * object has other problems (by default zod runs it only on an object without any): only when none
 * of them failed its own type, so a form learns every problem in one pass.
 */
export const typedFields =
  (...fields: string[]) =>
  (payload: { issues: ReadonlyArray<{ code?: string; path?: PropertyKey[] }> }) =>
    !payload.issues.some((i) => i.code === 'invalid_type' && fields.includes(String(i.path?.[0])));
