import { z } from 'zod';
import { requiredName } from './fields.js';

/** Longest passkey name. */
export const PASSKEY_NAME_MAX = 100;
/** A challenge handed out for a passkey ceremony is answered within this time or never. */
export const PASSKEY_CHALLENGE_MS = 5 * 60_000;

/** A user's passkey as the API shows it (never the public key or the counter). */
export const passkeySchema = z.object({
  id: z.number().int(),
  name: z.string(),
  created: z.string(),
  last_used: z.string().nullable(),
  transports: z.array(z.string()),
});
export type Passkey = z.infer<typeof passkeySchema>;

const b64url = z
  .string()
  .max(20_000)
  .regex(/^[A-Za-z0-9_-]*={0,2}$/);

/**
 * What the browser answers to navigator.credentials (the JSON form @simplewebauthn/browser
 * gives); the server checks its content, this only its shape and size.
 */
const credentialBase = {
  id: b64url.min(1),
  rawId: b64url.min(1),
  type: z.literal('public-key'),
  clientExtensionResults: z.record(z.string(), z.unknown()).default({}),
  authenticatorAttachment: z.enum(['platform', 'cross-platform']).optional(),
};

export const registrationResponseSchema = z.object({
  ...credentialBase,
  response: z.object({
    clientDataJSON: b64url,
    attestationObject: b64url,
    transports: z.array(z.string().max(32)).max(10).optional(),
  }),
});
export type RegistrationResponse = z.infer<typeof registrationResponseSchema>;

export const authenticationResponseSchema = z.object({
  ...credentialBase,
  response: z.object({
    clientDataJSON: b64url,
    authenticatorData: b64url,
    signature: b64url,
    userHandle: b64url.optional(),
  }),
});
export type AuthenticationResponse = z.infer<typeof authenticationResponseSchema>;

/** Registering a passkey: its name and the browser's answer to the registration options. */
export const passkeyCreateSchema = z.object({
  name: requiredName('Name', PASSKEY_NAME_MAX),
  response: registrationResponseSchema,
});
export type PasskeyCreate = z.infer<typeof passkeyCreateSchema>;

export const passkeyRenameSchema = z.object({ name: requiredName('Name', PASSKEY_NAME_MAX) });
export type PasskeyRename = z.infer<typeof passkeyRenameSchema>;

/**
 * Proof that it is really the user (a session left open or stolen is not enough), for adding a
 * passkey (POST /api/user/passkeys/options) and removing one: the current password, a current
 * TOTP code, or a passkey's answer to a challenge from POST /api/user/passkeys/proof/options.
 */
export const passkeyProofSchema = z
  .object({
    password: z.string().max(1000).optional(),
    passcode: z.string().max(20).optional(),
    assertion: authenticationResponseSchema.optional(),
  })
  .nullish();
export type PasskeyProofBody = z.infer<typeof passkeyProofSchema>;

/** An answer to a sign-in challenge (second step or passwordless). */
export const passkeyAssertionSchema = z.object({ response: authenticationResponseSchema });
export type PasskeyAssertion = z.infer<typeof passkeyAssertionSchema>;

/**
 * The options the browser passes to navigator.credentials.create/get (WebAuthn's JSON form);
 * kept open: the console hands them to @simplewebauthn/browser as they are.
 */
export const passkeyOptionsSchema = z.object({ challenge: z.string() }).catchall(z.unknown());
export type PasskeyOptions = z.infer<typeof passkeyOptionsSchema>;
