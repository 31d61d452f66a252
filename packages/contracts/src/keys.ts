import { z } from 'zod';
import { coded } from './coded.js';
import { ErrorCodes } from './errors.js';
import {
  hasControlCharacters,
  requiredIssue,
  requiredMessage,
  requiredName,
  secretText,
  singleLine,
} from './fields.js';

export const KEY_TYPES = ['ssh', 'login_password', 'none'] as const;
export const keyTypeSchema = z.enum(KEY_TYPES, requiredMessage('Type'));
export type KeyType = z.infer<typeof keyTypeSchema>;

/**
 * A key as the API shows it: never its material, only whether any is stored. The secret fields
 * are always there and always blank, as Semaphore sends them (its console's edit dialog reads
 * them); only the login of the key's own type is filled in, since it reveals no secret.
 */
export const keySchema = z.object({
  id: z.number().int(),
  project_id: z.number().int(),
  name: z.string(),
  type: keyTypeSchema,
  /** Present (true) only when no material is stored; left out otherwise, as Semaphore's `omitempty`. */
  empty: z.literal(true).optional(),
  string: z.literal(''),
  login_password: z.object({ login: z.string(), password: z.literal('') }),
  ssh: z.object({ login: z.string(), passphrase: z.literal(''), private_key: z.literal('') }),
  override_secret: z.literal(false),
});
export type AccessKey = z.infer<typeof keySchema>;

// Secrets are at most SECRET_MAX_BYTES each (an RSA-16384 key in PEM is under 13 KiB).
const sshSchema = z.object({
  login: singleLine('Login').default(''),
  passphrase: secretText('Passphrase').default(''),
  private_key: secretText('Private key')
    .refine(
      (s) => !hasControlCharacters(s.replace(/[\t\n\r]/g, '')),
      coded('Private key must not contain control characters', ErrorCodes.controlCharacters, {
        label_key: 'private_key',
      }),
    )
    .default(''),
});
const loginPasswordSchema = z.object({
  login: singleLine('Login').default(''),
  password: secretText('Password').default(''),
});

/**
 * Create and update bodies. Secret fields are checked only when they are being written: always on
 * create, on update only with `override_secret` (without it the stored secret stays untouched).
 */
export function keyInputSchema(isNew: boolean) {
  return z
    .object({
      name: requiredName('Name'),
      type: keyTypeSchema,
      override_secret: z.boolean().default(false),
      ssh: sshSchema.optional(),
      login_password: loginPasswordSchema.optional(),
    })
    .superRefine((k, ctx) => {
      if (!isNew && !k.override_secret) return;
      if (k.type === 'ssh' && !k.ssh?.private_key.trim()) {
        ctx.addIssue({
          code: 'custom',
          path: ['ssh', 'private_key'],
          ...requiredIssue('Private key'),
        });
      }
      if (k.type === 'login_password' && !k.login_password?.password) {
        ctx.addIssue({
          code: 'custom',
          path: ['login_password', 'password'],
          ...requiredIssue('Password'),
        });
      }
    });
}
export const keyCreateSchema = keyInputSchema(true);
export const keyUpdateSchema = keyInputSchema(false);
export type KeyInput = z.input<typeof keyCreateSchema>;
