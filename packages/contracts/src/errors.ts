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
