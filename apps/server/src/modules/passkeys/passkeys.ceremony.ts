import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticatorTransportFuture,
} from '@simplewebauthn/server';
import type { AuthenticationResponse, PasskeyOptions, RegistrationResponse } from '@gantry/contracts';

/** Who the passkeys belong to: the console's host name and origin (from GANTRY_WEB_HOST). */
export interface RelyingParty {
  id: string;
  origin: string;
}

/** A stored credential as the checks need it. */
export interface StoredCredential {
  credential_id: string;
  public_key: string;
  counter: number;
  transports: string;
}

const RP_NAME = 'Gantry';

const transportsOf = (c: StoredCredential) => JSON.parse(c.transports) as AuthenticatorTransportFuture[];

/** The relying party of a console address (scheme://host[:port]). */
export function relyingPartyOf(origin: string): RelyingParty {
  const url = new URL(origin);
  return { id: url.hostname, origin: url.origin };
}

/** The challenge an answer carries in its client data (base64url), or undefined when unreadable. */
export function challengeOf(clientDataJSON: string): string | undefined {
  try {
    const data = JSON.parse(Buffer.from(clientDataJSON, 'base64url').toString('utf8')) as { challenge?: unknown };
    return typeof data.challenge === 'string' ? data.challenge : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The WebAuthn ceremonies (@simplewebauthn/server) behind one small seam: every passkey is a
 * discoverable credential that verifies its user (PIN, biometrics), attested with 'none'.
 */
export const ceremony = {
  async registrationOptions(
    rp: RelyingParty,
    user: { id: number; username: string; name: string },
    existing: StoredCredential[],
  ): Promise<PasskeyOptions> {
    const options = await generateRegistrationOptions({
      rpName: RP_NAME,
      rpID: rp.id,
      userName: user.username,
      userDisplayName: user.name,
      userID: new TextEncoder().encode(`gantry-user-${user.id}`),
      attestationType: 'none',
      excludeCredentials: existing.map((c) => ({ id: c.credential_id, transports: transportsOf(c) })),
      authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
    });
    return { ...options };
  },

  /** The new credential when the answer verifies, else undefined (never throws on a bad answer). */
  async verifyRegistration(rp: RelyingParty, challenge: string, response: RegistrationResponse) {
    try {
      const result = await verifyRegistrationResponse({
        response: {
          ...response,
          response: {
            ...response.response,
            transports: response.response.transports as AuthenticatorTransportFuture[] | undefined,
          },
        },
        expectedChallenge: challenge,
        expectedOrigin: rp.origin,
        expectedRPID: rp.id,
        requireUserVerification: true,
      });
      if (!result.verified) return undefined;
      const { credential } = result.registrationInfo;
      return {
        credential_id: credential.id,
        public_key: Buffer.from(credential.publicKey).toString('base64url'),
        counter: credential.counter,
        transports: JSON.stringify(credential.transports ?? response.response.transports ?? []),
      };
    } catch {
      return undefined;
    }
  },

  async authenticationOptions(rp: RelyingParty, allow: StoredCredential[] | undefined): Promise<PasskeyOptions> {
    const options = await generateAuthenticationOptions({
      rpID: rp.id,
      userVerification: 'required',
      ...(allow ? { allowCredentials: allow.map((c) => ({ id: c.credential_id, transports: transportsOf(c) })) } : {}),
    });
    return { ...options };
  },

  /**
   * The credential's new counter when the answer verifies (signature, origin, relying party, user
   * verified, counter grown unless both are 0), else undefined.
   */
  async verifyAuthentication(
    rp: RelyingParty,
    challenge: string,
    response: AuthenticationResponse,
    stored: StoredCredential,
  ): Promise<number | undefined> {
    try {
      const result = await verifyAuthenticationResponse({
        response,
        expectedChallenge: challenge,
        expectedOrigin: rp.origin,
        expectedRPID: rp.id,
        requireUserVerification: true,
        credential: {
          id: stored.credential_id,
          publicKey: new Uint8Array(Buffer.from(stored.public_key, 'base64url')),
          counter: stored.counter,
          transports: transportsOf(stored),
        },
      });
      return result.verified ? result.authenticationInfo.newCounter : undefined;
    } catch {
      return undefined;
    }
  },
};
