import { z } from 'zod';
import { coded } from './coded.js';
import { ErrorCodes } from './errors.js';

/** Who must sign in with two factors: nobody, administrators, or everyone. */
export const TWO_FACTOR_POLICIES = ['off', 'admins', 'all'] as const;
export const twoFactorPolicySchema = z.enum(
  TWO_FACTOR_POLICIES,
  coded('Two-factor policy must be one of: off, admins, all', ErrorCodes.mustBeOneOf, {
    name: 'required',
    values: TWO_FACTOR_POLICIES.join(', '),
  }),
);
export type TwoFactorPolicy = z.infer<typeof twoFactorPolicySchema>;

/**
 * GET /api/admin/settings/two-factor. `fixed`: GANTRY_TOTP_REQUIRED sets it, and it cannot be
 * changed here; `totp_enabled`: two-factor sign-in is on (GANTRY_TOTP_ENABLED), which a policy
 * other than `off` needs.
 */
export const twoFactorSettingsSchema = z.object({
  required: twoFactorPolicySchema,
  fixed: z.boolean(),
  totp_enabled: z.boolean(),
});
export type TwoFactorSettings = z.infer<typeof twoFactorSettingsSchema>;

/** PUT /api/admin/settings/two-factor. */
export const twoFactorSettingsUpdateSchema = z.object({ required: twoFactorPolicySchema });
export type TwoFactorSettingsUpdate = z.infer<typeof twoFactorSettingsUpdateSchema>;
