import { z } from 'zod';
import { VERIFICATION_CODE_LENGTH } from './constants.js';
import { requiredString } from './fields.js';

export const loginBodySchema = z.object({
  auth: requiredString('Username'),
  password: z.string({ error: 'Password is required' }).min(1, { error: 'Password is required' }),
});
export type LoginBody = z.infer<typeof loginBodySchema>;

/** The second sign-in step: the 6-digit code of the user's authenticator app. */
export const verifyBodySchema = z.object({
  passcode: z
    .string({ error: 'Verification code is required' })
    .trim()
    .length(VERIFICATION_CODE_LENGTH, { error: `Verification code must be ${VERIFICATION_CODE_LENGTH} characters` }),
});
export type VerifyBody = z.infer<typeof verifyBodySchema>;

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
