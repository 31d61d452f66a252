import { z } from 'zod';
import { coded } from './coded.js';
import { ErrorCodes } from './errors.js';

/**
 * An API token as listed. `id` is the token's public identifier (its first 8 characters, as
 * Semaphore lists its tokens), never the secret: tokens are stored hashed, so the value exists
 * only in the creation answer. `user_id` is the owner's, as in Semaphore.
 */
export const apiTokenSchema = z.object({
  id: z.string(),
  token_id: z.string(),
  user_id: z.number().int(),
  created: z.string(),
  /** True once deleted (expired by hand), revoked, or past `expires`: the token no longer signs in. */
  expired: z.boolean(),
  /** When the token stops working on its own (ISO), or null for never. */
  expires: z.string().nullable(),
});
export type ApiToken = z.infer<typeof apiTokenSchema>;

/** The lifetimes a new token may be given, in days; none (absent, null or 0) means it never expires. */
export const TOKEN_EXPIRY_DAYS = [30, 90, 365] as const;

/** The body of `POST /api/user/tokens`; an empty body is a token that never expires. */
export const apiTokenCreateSchema = z
  .object({
    expires_in_days: z
      .literal(
        [0, ...TOKEN_EXPIRY_DAYS],
        coded(
          `expires_in_days must be one of ${TOKEN_EXPIRY_DAYS.join(', ')}, or empty for never`,
          ErrorCodes.tokenExpiryInvalid,
          {
            values: TOKEN_EXPIRY_DAYS.join(', '),
          },
        ),
      )
      .nullish(),
  })
  .nullish();
export type ApiTokenCreate = z.input<typeof apiTokenCreateSchema>;

/** The creation answer: `id` carries the whole token value, shown this once. */
export const apiTokenCreatedSchema = apiTokenSchema;
export type ApiTokenCreated = ApiToken;
