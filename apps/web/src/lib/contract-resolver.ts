import type { FieldErrors, FieldValues, Resolver } from 'react-hook-form';
import { issueCode } from '@gantry/contracts';
import type { ZodType, z } from 'zod';
import { codeText } from './error-text';

/**
 * The text shown for a contracts rule that failed: the console's words, in the user's language,
 * for a rule with a stable code (contracts' issueCode: its `params.code`, or the code its text
 * was given; worded as the server's refusal would be); else the rule's own (English) message,
 * e.g. for a code the dictionaries do not have yet.
 */
export function issueText(issue: z.core.$ZodIssue): string {
  return codeText(issueCode(issue)) ?? issue.message;
}

/**
 * A react-hook-form resolver that checks form values with a contracts schema (the same rules and
 * messages the server applies; a rule with a stable code is worded by the console's dictionary,
 * as the server's refusal would be). `toBody` turns form values into the request body first.
 */
export function contractResolver<V extends FieldValues>(
  schema: ZodType,
  toBody: (v: V) => unknown = (v) => v,
  /** Body paths (dotted) whose messages belong to a differently named form field. */
  fieldOf: Record<string, string> = {},
): Resolver<V> {
  return async (values) => {
    const r = schema.safeParse(toBody(values));
    if (r.success) return { values, errors: {} };
    const errors: Record<string, unknown> = {};
    for (const issue of r.error.issues) {
      const message = issueText(issue);
      let node = errors;
      const dotted = issue.path.map(String).join('.');
      const path = dotted in fieldOf ? fieldOf[dotted]!.split('.') : issue.path.length ? issue.path.map(String) : ['root'];
      path.forEach((part, i) => {
        if (i === path.length - 1) node[part] ??= { type: 'validate', message };
        else node = (node[part] ??= {}) as Record<string, unknown>;
      });
    }
    return { values: {}, errors: errors as FieldErrors<V> };
  };
}

/**
 * Form errors by dotted path ('survey_vars.0.name' → message), for forms whose list fields are
 * drawn without `register` and look their message up by path.
 */
export function errorMessages(errors: FieldErrors, prefix = '', out: Record<string, string> = {}): Record<string, string> {
  for (const [key, node] of Object.entries(errors)) {
    if (key === 'ref' || !node || typeof node !== 'object') continue;
    const path = prefix ? `${prefix}.${key}` : key;
    const message = (node as { message?: unknown }).message;
    if (typeof message === 'string') out[path] = message;
    else errorMessages(node as FieldErrors, path, out);
  }
  return out;
}
