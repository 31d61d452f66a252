import { z } from 'zod';

/**
 * Every failed API call answers this body: `error` is the English text; some refusals add a
 * stable `code` (a client, the console above all, tells them apart by it and words them in its
 * own language) and the `field` of the request they are about (a dotted path).
 */
export const errorBodySchema = z.object({
  error: z.string(),
  code: z.string().optional(),
  field: z.string().optional(),
});
export type ErrorBody = z.infer<typeof errorBodySchema>;

/** Error texts the specification fixes. */
export const Messages = {
  incorrectLogin: 'Incorrect login or password',
  incorrectCurrentPassword: 'Current password is incorrect',
  currentPasswordRequired: 'Current password is required',
  /** One's own password without the current one: only from a session signed in a few minutes ago. */
  recentSignInRequired: 'Sign in again to change your password',
  tooManyAttempts: 'Too many failed sign-in attempts, try again later',
  notAuthenticated: 'Not authenticated',
  /** A 401 with this error: the password was right, the second sign-in step is still to do. */
  totpRequired: 'TOTP_REQUIRED',
  incorrectVerificationCode: 'Incorrect verification code.',
  incorrectRecoveryCode: 'Incorrect recovery code.',
  totpDisabled: 'Two-factor sign-in is not enabled on this server',
  totpExists: 'Two-factor sign-in is already enabled for this user',
  totpNotFound: 'Two-factor method not found',
  totpQrOwnOnly: 'Only the user can see their own two-factor QR code',
  recoveryDisabled: 'Recovery codes are not accepted on this server',
  /** Removing one's own two-factor method needs one of these (a stolen session alone is not enough). */
  totpProofRequired: 'Enter your current password or a current verification code',
  forbidden: 'Forbidden',
  notFound: 'Not found',
  projectNotFound: 'Project not found',
  userNotFound: 'User not found',
  tokenNotFound: 'Token not found',
  usernameTaken: 'Username is already taken',
  emailTaken: 'Email is already taken',
  crossSite: 'Cross-site request refused',
  cannotDeleteSelf: 'You cannot delete yourself',
  lastAdmin: 'The last administrator cannot be removed',
} as const;

/**
 * The stable codes of refusals (`code` beside `error`). The console has a translation for each
 * (`errors.<code>` in its dictionaries); contracts' rules that carry one put it in their issue's
 * `params.code`, which the server answers as `code`.
 */
export const ErrorCodes = {
  /** A variable name task input may not take (Ansible's own, or one that steers the process or its connections). */
  variableReserved: 'variable_reserved',
  /** A variable name that is not letters, digits and underscores. */
  variableNameInvalid: 'variable_name_invalid',
  /** A variable of task input that would replace one of the variable group's environment variables. */
  variableReplacesGroup: 'variable_replaces_group',
  /** A name or description with bidirectional-override or invisible characters. */
  invisibleCharacters: 'invisible_characters',
  /** A secret or a variable group larger than its limit. */
  tooLarge: 'too_large',
  /** A change to one's own account that needs the current password (e.g. enabling two-factor sign-in) came without it. */
  currentPasswordRequired: 'current_password_required',
  /** The current password given to confirm a change to one's own account is wrong. */
  currentPasswordIncorrect: 'current_password_incorrect',
  /** One's own password changed without the current one, from an API token or a session not signed in recently. */
  recentSignInRequired: 'recent_sign_in_required',
} as const;
export type ErrorCode = (typeof ErrorCodes)[keyof typeof ErrorCodes];
