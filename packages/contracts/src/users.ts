import { z } from 'zod';
import { requiredString } from './fields.js';

const email = () =>
  requiredString('Email').refine((v) => /^[^\s@]+@[^\s@]+$/.test(v), { error: 'Email is invalid' });
const username = () =>
  requiredString('Username').refine((v) => !/\s/.test(v), { error: 'Username must not contain spaces' });

/**
 * A user's two-factor (TOTP) method as the API shows it: never the secret; the recovery code only
 * in the answer that enables it (it is shown once).
 */
export const userTotpSchema = z.object({ id: z.number().int(), recovery_code: z.string().optional() });
export type UserTotp = z.infer<typeof userTotpSchema>;

/** The answer to enabling two-factor sign-in. */
export const totpCreatedSchema = z.object({ id: z.number().int(), recovery_code: z.string() });
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
    ctx.addIssue({ code: 'custom', path: ['password'], message: 'Password is required' });
  }
});

/**
 * PUT /api/users/{id}. A non-empty `password` sets it (Semaphore clients send it here): admins
 * for other users; users for themselves with `current_password`, or without it from a session
 * signed in during the last few minutes (as `passwordChangeSchema`).
 */
export const userUpdateSchema = z.object({
  name: requiredString('Name'),
  username: username(),
  email: email(),
  alert: z.boolean().optional(),
  admin: z.boolean().optional(),
  external: z.boolean().optional(),
  password: z.string({ error: 'Password must be a string' }).optional(),
  current_password: z.string({ error: 'Current password must be a string' }).optional(),
});
export type UserUpdate = z.input<typeof userUpdateSchema>;

export const passwordChangeSchema = z.object({
  password: z.string({ error: 'Password is required' }).min(1, { error: 'Password is required' }),
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
    password: z.string({ error: 'Password must be a string' }).max(1000).optional(),
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
