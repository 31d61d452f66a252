import { z } from 'zod';

/** A trimmed string that must not be empty; the message follows the spec's '<thing> is required'. */
export function requiredString(thing: string) {
  const message = `${thing} is required`;
  return z.string({ error: message }).trim().min(1, { error: message });
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
