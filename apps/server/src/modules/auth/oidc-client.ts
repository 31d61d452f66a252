import * as oidc from 'openid-client';
import type { OidcProviderConfig } from '../../config/oidc-providers.js';

/** What the browser's round trip through the provider must bring back unchanged. */
export interface OidcChecks {
  state: string;
  nonce: string;
  codeVerifier: string;
}

/** The provider's side of sign-in; the one place that talks OpenID Connect (openid-client). */
export interface OidcClient {
  /** Fresh random state, nonce and PKCE verifier. */
  newChecks(): OidcChecks;
  authorizationUrl(provider: OidcProviderConfig, redirectUri: string, checks: OidcChecks): Promise<URL>;
  /**
   * Checks the callback (state, PKCE, id_token signature, issuer, audience, expiry, nonce) and
   * answers the user's claims: the id_token's, completed from userinfo when one is missing
   * (userinfo never replaces an id_token claim, so `iss` and `sub` are the id_token's).
   */
  claims(provider: OidcProviderConfig, callbackUrl: URL, checks: OidcChecks): Promise<Record<string, unknown>>;
}

/** A failure the provider reported itself (the user declined, a bad client, ...). */
export class ProviderRefusedError extends Error {}

/** openid-client, with each provider's discovery document fetched at its first sign-in. */
export function openidClient(): OidcClient {
  const configs = new Map<string, Promise<oidc.Configuration>>();

  const configFor = (p: OidcProviderConfig): Promise<oidc.Configuration> => {
    let found = configs.get(p.id);
    if (!found) {
      found = discover(p);
      // A provider that was down is asked again next time.
      found.catch(() => configs.delete(p.id));
      configs.set(p.id, found);
    }
    return found;
  };

  return {
    newChecks: () => ({ state: oidc.randomState(), nonce: oidc.randomNonce(), codeVerifier: oidc.randomPKCECodeVerifier() }),

    async authorizationUrl(provider, redirectUri, checks) {
      const config = await configFor(provider);
      return oidc.buildAuthorizationUrl(config, {
        redirect_uri: redirectUri,
        scope: provider.scopes.join(' '),
        state: checks.state,
        nonce: checks.nonce,
        code_challenge: await oidc.calculatePKCECodeChallenge(checks.codeVerifier),
        code_challenge_method: 'S256',
      });
    },

    async claims(provider, callbackUrl, checks) {
      const config = await configFor(provider);
      let tokens: Awaited<ReturnType<typeof oidc.authorizationCodeGrant>>;
      try {
        tokens = await oidc.authorizationCodeGrant(config, callbackUrl, {
          expectedState: checks.state,
          expectedNonce: checks.nonce,
          pkceCodeVerifier: checks.codeVerifier,
          idTokenExpected: true,
        });
      } catch (err) {
        if (err instanceof oidc.AuthorizationResponseError) {
          throw new ProviderRefusedError(err.error_description ?? err.error);
        }
        throw err;
      }
      const idClaims = tokens.claims();
      if (!idClaims) throw new Error('the provider sent no id_token');
      const claims: Record<string, unknown> = { ...idClaims };
      // email_verified too: it decides whether an existing account may be linked by its email.
      // The groups claim's first segment too (`realm_access` of `realm_access.roles`), when group mapping reads one.
      const wanted = [provider.usernameClaim, provider.nameClaim, provider.emailClaim, 'email_verified', ...(provider.groupsClaim ? [provider.groupsClaim.split('.')[0]!] : [])];
      if (wanted.some((c) => claims[c] === undefined) && config.serverMetadata().userinfo_endpoint) {
        const info = await oidc.fetchUserInfo(config, tokens.access_token, idClaims.sub);
        for (const [k, v] of Object.entries(info)) if (claims[k] === undefined) claims[k] = v;
      }
      return claims;
    },
  };
}

async function discover(p: OidcProviderConfig): Promise<oidc.Configuration> {
  const options = p.allowInsecureHttp ? { execute: [oidc.allowInsecureRequests] } : undefined;
  const config = await oidc.discovery(new URL(p.providerUrl), p.clientId, undefined, oidc.ClientSecretBasic(p.clientSecret), options);
  // Check the id_token's signature against the provider's keys too, not only TLS to its token endpoint.
  oidc.enableNonRepudiationChecks(config);
  return config;
}
