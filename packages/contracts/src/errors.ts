import { z } from 'zod';

/** Every failed API call answers this body. */
export const errorBodySchema = z.object({ error: z.string() });
export type ErrorBody = z.infer<typeof errorBodySchema>;

/** Error texts the specification fixes. */
export const Messages = {
  incorrectLogin: 'Incorrect login or password',
  incorrectCurrentPassword: 'Current password is incorrect',
  currentPasswordRequired: 'Current password is required',
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
