import { z } from 'zod';
import { coded } from './coded.js';
import { ErrorCodes } from './errors.js';
import { requiredIssue, requiredMessage, requiredString } from './fields.js';

const email = () =>
  requiredString('Email').refine(
    (v) => /^[^\s@]+@[^\s@]+$/.test(v),
    coded('Email is invalid', ErrorCodes.emailInvalid),
  );
const username = () =>
  requiredString('Username').refine(
    (v) => !/\s/.test(v),
    coded('Username must not contain spaces', ErrorCodes.usernameSpaces),
  );

/**
 * A user's two-factor (TOTP) method as the API shows it: never the secret; the recovery code only
 * in the answer that enables it (it is shown once).
 */
export const userTotpSchema = z.object({ id: z.number().int(), recovery_code: z.string().optional() });
export type UserTotp = z.infer<typeof userTotpSchema>;

/**
 * The answer to enabling two-factor sign-in. One's own method starts unconfirmed (`confirmed`
 * false): sign-in does not ask for its code until one code was confirmed (POST
 * .../2fas/totp/{id}/confirm); the answer then carries the base32 `secret` for typing into an
 * authenticator app (the QR code carries it too). An admin's for another user is on at once.
 */
export const totpCreatedSchema = z.object({
  id: z.number().int(),
  recovery_code: z.string(),
  confirmed: z.boolean(),
  secret: z.string().optional(),
});
export type TotpCreated = z.infer<typeof totpCreatedSchema>;

/** A user as the API shows it. */
export const userSchema = z.object({
  id: z.number().int(),
  name: z.string(),
  username: z.string(),
  email: z.string(),
  alert: z.boolean(),
  admin: z.boolean(),
  external: z.boolean(),
  created: z.string(),
  totp: userTotpSchema.nullable(),
});
export type User = z.infer<typeof userSchema>;

/** The signed-in user, with what the shell needs to know. */
export const currentUserSchema = userSchema.extend({ can_create_project: z.boolean() });
export type CurrentUser = z.infer<typeof currentUserSchema>;

/** What a non-admin may see of other users (team candidates). */
export const userSummarySchema = z.object({ id: z.number().int(), name: z.string(), username: z.string() });
export type UserSummary = z.infer<typeof userSummarySchema>;

/**
 * POST /api/users. The password may be left out (an account to be given one later, or an external
 * user): such a user cannot sign in with a password until one is set.
 */
export const userCreateSchema = z.object({
  name: requiredString('Name'),
  username: username(),
  email: email(),
  password: z.string().optional(),
  alert: z.boolean().default(false),
  admin: z.boolean().default(false),
  external: z.boolean().default(false),
});
export type UserCreate = z.input<typeof userCreateSchema>;

/** The console's new-user form, stricter than the API: a password unless the user is external. */
export const userCreateFormSchema = userCreateSchema.superRefine((u, ctx) => {
  if (!u.external && !u.password) {
    ctx.addIssue({ code: 'custom', path: ['password'], ...requiredIssue('Password') });
  }
});

/**
 * PUT /api/users/{id}. A non-empty `password` sets it (Semaphore clients send it here): admins
 * for other users; users for themselves with `current_password`, or without it from a session
 * signed in during the last few minutes (as `passwordChangeSchema`).
 */
const passwordText = coded('Password must be a string', ErrorCodes.mustBeString, { label_key: 'password' });

export const userUpdateSchema = z.object({
  name: requiredString('Name'),
  username: username(),
  email: email(),
  alert: z.boolean().optional(),
  admin: z.boolean().optional(),
  external: z.boolean().optional(),
  password: z.string(passwordText).optional(),
  current_password: z
    .string(coded('Current password must be a string', ErrorCodes.mustBeString, { label_key: 'current_password' }))
    .optional(),
});
export type UserUpdate = z.input<typeof userUpdateSchema>;

export const passwordChangeSchema = z.object({
  password: z.string(requiredMessage('Password')).min(1, requiredMessage('Password')),
  /**
   * Users changing their own password give it, unless they do so from a session signed in during
   * the last few minutes (Semaphore's console sends `{password}` alone); an API token always needs it.
   */
  current_password: z.string().optional(),
});
export type PasswordChange = z.infer<typeof passwordChangeSchema>;

/**
 * Enabling one's own two-factor method takes the current password, so a session left open or
 * stolen cannot turn it on and lock the owner out. An admin enabling another user's sends none.
 */
export const totpEnableSchema = z
  .object({
    password: z.string(passwordText).max(1000).optional(),
  })
  .nullish();
export type TotpEnable = z.infer<typeof totpEnableSchema>;

/**
 * Proof for removing one's own two-factor method: the current password or a current code. An
 * admin removing another user's method (a lost device) sends neither.
 */
export const totpRemoveSchema = z
  .object({
    password: z.string().max(1000).optional(),
    passcode: z.string().max(20).optional(),
  })
  .nullish();
export type TotpRemove = z.infer<typeof totpRemoveSchema>;

/** Confirming one's own new two-factor method with a current code from the authenticator app. */
export const totpConfirmSchema = z.object({
  code: z
    .string(requiredMessage('Verification code'))
    .trim()
    .min(1, requiredMessage('Verification code'))
    .max(20, coded('Incorrect verification code.', ErrorCodes.totpCodeIncorrect)),
});
export type TotpConfirm = z.infer<typeof totpConfirmSchema>;
