import { z } from 'zod';

/**
 * An API token as listed. `id` is the token's public identifier (its first characters), never
 * the secret: tokens are stored hashed, so the value exists only in the creation answer.
 */
export const apiTokenSchema = z.object({
  id: z.string(),
  token_id: z.string(),
  created: z.string(),
  expired: z.boolean(),
});
export type ApiToken = z.infer<typeof apiTokenSchema>;

/** The creation answer: `id` carries the whole token value, shown this once. */
export const apiTokenCreatedSchema = apiTokenSchema;
export type ApiTokenCreated = ApiToken;
