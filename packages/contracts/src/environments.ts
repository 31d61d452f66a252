import { z } from 'zod';
import { coded, codedIssue, labelKey, type FieldLabel } from './coded.js';
import { ErrorCodes } from './errors.js';
import {
  formatBytes,
  hasInvisibleCharacters,
  requiredMessage,
  requiredName,
  utf8Length,
  VARIABLE_GROUP_MAX_BYTES,
} from './fields.js';
import { envNameIssue } from './variables.js';

export const SECRET_TYPES = ['var', 'env'] as const;
export const secretTypeSchema = z.enum(SECRET_TYPES, requiredMessage('Type'));

/** A secret as listed: the value never comes back. */
export const environmentSecretSchema = z.object({ id: z.number().int(), name: z.string(), type: secretTypeSchema });
export type EnvironmentSecret = z.infer<typeof environmentSecretSchema>;

export const environmentSchema = z.object({
  id: z.number().int(),
  project_id: z.number().int(),
  name: z.string(),
  json: z.string(),
  env: z.string(),
  /** Semaphore's (long unused) vault password of a variable group: always null here. */
  password: z.null(),
  secrets: z.array(environmentSecretSchema),
});
export type Environment = z.infer<typeof environmentSchema>;

/** Text that parses to a JSON object; empty text means `{}`. `thing` names it: '<thing> must be valid JSON'. */
export function jsonObjectText(thing: FieldLabel) {
  const invalid = coded(`${thing} must be valid JSON`, ErrorCodes.jsonInvalid, { label_key: labelKey(thing) });
  return z
    .string()
    .trim()
    .default('{}')
    .transform((v) => v || '{}')
    .refine((v) => {
      try {
        const parsed: unknown = JSON.parse(v);
        return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed);
      } catch {
        return false;
      }
    }, invalid);
}

/** One change to the secrets on save: create new, update edited, delete removed. */
export const secretChangeSchema = z.object({
  id: z.number().int().optional(),
  name: requiredName('Secret name'),
  secret: z.string().default(''),
  type: secretTypeSchema,
  operation: z.enum(['create', 'update', 'delete']).optional(),
});
export type SecretChange = z.input<typeof secretChangeSchema>;

const groupTooLarge = codedIssue(
  `Extra variables, environment variables and secrets of a variable group must be at most ${formatBytes(VARIABLE_GROUP_MAX_BYTES)} in total`,
  ErrorCodes.tooLarge,
  { limit: formatBytes(VARIABLE_GROUP_MAX_BYTES) },
);

export const environmentInputSchema = z
  .object({
    name: requiredName('Name'),
    json: jsonObjectText('Extra variables'),
    env: jsonObjectText('Environment variables'),
    secrets: z.array(secretChangeSchema).default([]),
  })
  .superRefine((e, ctx) => {
    // One limit for what a group holds; the issue goes on its largest part.
    const sizes = {
      json: utf8Length(e.json),
      env: utf8Length(e.env),
      secrets: e.secrets.reduce((n, s) => n + utf8Length(s.secret), 0),
    };
    if (sizes.json + sizes.env + sizes.secrets > VARIABLE_GROUP_MAX_BYTES) {
      const largest = (Object.keys(sizes) as Array<keyof typeof sizes>).reduce((a, b) => (sizes[b] > sizes[a] ? b : a));
      return void ctx.addIssue({ code: 'custom', path: [largest], ...groupTooLarge });
    }
    const keys = (text: string) => {
      try {
        return Object.keys(JSON.parse(text) as object);
      } catch {
        return [];
      }
    };
    // Variable names, like other names, show what they are.
    for (const field of ['json', 'env'] as const) {
      const name = keys(e[field]).find(hasInvisibleCharacters);
      if (name !== undefined)
        return void ctx.addIssue({
          code: 'custom',
          path: [field],
          ...codedIssue(
            `Variable ${JSON.stringify(name)} must not contain invisible or bidirectional control characters`,
            ErrorCodes.invisibleCharacters,
            {
              variable: name,
            },
          ),
        });
    }
    // Environment variables may not steer the task process (loader, shell, interpreters...).
    const problem = (name: string) => {
      const issue = envNameIssue(name, 'group');
      return issue && codedIssue(issue.message, issue.code, { variable: name });
    };
    const envNames = keys(e.env);
    for (const name of envNames) {
      const p = problem(name);
      if (p) return void ctx.addIssue({ code: 'custom', path: ['env'], ...p });
    }
    for (const s of e.secrets) {
      const p = s.type === 'env' && s.operation !== 'delete' ? problem(s.name) : null;
      if (p) return void ctx.addIssue({ code: 'custom', path: ['secrets'], ...p });
    }
  });
export type EnvironmentInput = z.input<typeof environmentInputSchema>;
