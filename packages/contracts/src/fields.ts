import { z } from 'zod';

/** Longest name (and other short single-line text) a form or the API takes. */
export const NAME_MAX = 255;
/** Longest description. */
export const DESCRIPTION_MAX = 4096;
/** Longest URL (repository URLs, webhooks). */
export const URL_MAX = 2048;

const tooLong = (thing: string, max: number) => ({ error: `${thing} must be at most ${max} characters` });
const controlCharacters = (thing: string) => ({ error: `${thing} must not contain control characters` });

/**
 * A trimmed single-line string that must not be empty: at most `max` characters and no control
 * characters (NUL included). The message follows the spec's '<thing> is required'.
 */
export function requiredString(thing: string, max = NAME_MAX) {
  return requiredText(thing, max).refine((s) => !hasControlCharacters(s), controlCharacters(thing));
}

/**
 * Like requiredString without the control-character rule, for fields whose own check (a path, a
 * URL) already refuses control characters with a message that says what the value must be.
 */
export function requiredText(thing: string, max = NAME_MAX) {
  const message = `${thing} is required`;
  return z.string({ error: message }).trim().min(1, { error: message }).max(max, tooLong(thing, max));
}

/** A trimmed string of at most `max` characters (for fields whose own check refuses control characters). */
export function boundedText(thing: string, max = NAME_MAX) {
  return z.string().trim().max(max, tooLong(thing, max));
}

/** A trimmed single-line string that may be empty (add `.default('')` or `.nullish()`). */
export function singleLine(thing: string, max = NAME_MAX) {
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
export function multiLine(thing: string, max: number) {
  return z
    .string()
    .max(max, tooLong(thing, max))
    .refine((s) => !hasControlCharacters(s.replace(/[\t\n\r]/g, '')), controlCharacters(thing));
}

/** A description: up to DESCRIPTION_MAX characters, empty when not given. */
export function description(thing = 'Description') {
  return multiLine(thing, DESCRIPTION_MAX).default('');
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
      .number({ error: 'Must be an integer' })
      .int({ error: 'Must be an integer' })
      .min(0, { error: 'Must be 0 or greater' }),
  );
}

export const idParamSchema = z.coerce.number({ error: 'Invalid id' }).int().positive({ error: 'Invalid id' });

/** Control characters (newlines, NUL, escape...) have no place in names, URLs, refs or paths. */
export function hasControlCharacters(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c === 0x7f) return true;
  }
  return false;
}
