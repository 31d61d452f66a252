import { z } from 'zod';
import { VERIFICATION_CODE_LENGTH } from './constants.js';
import { coded } from './coded.js';
import { ErrorCodes } from './errors.js';
import { requiredMessage, requiredString } from './fields.js';

export const loginBodySchema = z.object({
  auth: requiredString('Username'),
  password: z.string(requiredMessage('Password')).min(1, requiredMessage('Password')),
});
export type LoginBody = z.infer<typeof loginBodySchema>;

/** The second sign-in step: the 6-digit code of the user's authenticator app. */
export const verifyBodySchema = z.object({
  passcode: z
    .string(requiredMessage('Verification code'))
    .trim()
    .length(
      VERIFICATION_CODE_LENGTH,
      coded(`Verification code must be ${VERIFICATION_CODE_LENGTH} characters`, ErrorCodes.verificationCodeLength, {
        length: VERIFICATION_CODE_LENGTH,
      }),
    ),
});
export type VerifyBody = z.infer<typeof verifyBodySchema>;

/**
 * Which second steps the signed-in user has (GET /api/auth/second-factors), so the console offers
 * only those: a code of the authenticator app, a passkey, the recovery code (with the app only).
 */
export const secondFactorsSchema = z.object({
  totp: z.boolean(),
  passkey: z.boolean(),
  recovery: z.boolean(),
});
export type SecondFactors = z.infer<typeof secondFactorsSchema>;

/** The second sign-in step without the app: the recovery code shown when two-factor was enabled. */
export const recoveryBodySchema = z.object({ recovery_code: requiredString('Recovery code') });
export type RecoveryBody = z.infer<typeof recoveryBodySchema>;

export const oidcProviderSchema = z.object({
  id: z.string(),
  name: z.string(),
  color: z.string(),
  icon: z.string(),
});

export const authMethodsSchema = z.object({
  totp: z.object({ enabled: z.boolean(), allow_recovery: z.boolean() }),
});
export type AuthMethods = z.infer<typeof authMethodsSchema>;

export const loginInfoSchema = z.object({
  oidc_providers: z.array(oidcProviderSchema),
  login_with_password: z.boolean(),
  auth_methods: authMethodsSchema,
});
export type LoginInfo = z.infer<typeof loginInfoSchema>;

export const systemInfoSchema = z.object({
  version: z.string(),
  web_host: z.string(),
  use_remote_runner: z.boolean(),
  premium_features: z.record(z.string(), z.boolean()),
  auth_methods: authMethodsSchema,
});
export type SystemInfo = z.infer<typeof systemInfoSchema>;
