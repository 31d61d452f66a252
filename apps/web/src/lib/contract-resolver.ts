import type { FieldErrors, FieldValues, Resolver } from 'react-hook-form';
import type { ZodType } from 'zod';
import { codeText } from './error-text';

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
      const message = codeText('params' in issue ? issue.params : null) ?? issue.message;
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
