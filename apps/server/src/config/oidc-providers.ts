import { z } from 'zod';

/** One external OpenID Connect provider, as the server uses it. */
export interface OidcProviderConfig {
  id: string;
  displayName: string;
  color: string;
  icon: string;
  /** The issuer; its discovery document is at `<issuer>/.well-known/openid-configuration`. */
  providerUrl: string;
  clientId: string;
  /** Never leaves the server: not in any API answer, not in the log. */
  clientSecret: string;
  /** Where the provider sends the browser back; undefined: derived from the request's origin. */
  redirectUrl: string | undefined;
  scopes: string[];
  usernameClaim: string;
  nameClaim: string;
  emailClaim: string;
  /**
   * Where the ID token or userinfo holds the user's groups for group mapping: a dotted path
   * (`groups`, `roles`, Keycloak's `realm_access.roles`) to a string or an array of strings.
   * Undefined: the provider's sign-ins apply no mapping rules, and rules cannot name it.
   */
  groupsClaim: string | undefined;
  /**
   * The issuer is plain http on this machine (127.0.0.1, ::1 or localhost): tests and local
   * development only. Any other http issuer is refused when the configuration is read.
   */
  allowInsecureHttp: boolean;
  /**
   * `own_mfa`: the provider does its own multi-factor check, so its sessions are exempt from the
   * admin's two-factor requirement (Gantry's own code is still asked of users who set one up).
   */
  ownMfa: boolean;
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** http is accepted only for an issuer on this machine; https everywhere else. */
function isLoopbackHttp(url: string): boolean {
  const u = new URL(url);
  return u.protocol === 'http:' && LOOPBACK.has(u.hostname);
}

const text = (what: string) => z.string({ error: `${what} is required` }).trim().min(1, { error: `${what} is required` });
const claim = (fallback: string) => z.string().trim().min(1).default(fallback);

const providerSchema = z.object({
  display_name: text('display_name'),
  color: z.string().trim().default(''),
  icon: z.string().trim().default(''),
  provider_url: z
    .url({ protocol: /^https?$/, error: 'provider_url must be an http(s) URL' })
    .refine((u) => u.startsWith('https://') || isLoopbackHttp(u), {
      error: 'provider_url must use https (plain http only for 127.0.0.1/localhost)',
    }),
  client_id: text('client_id'),
  client_secret: text('client_secret'),
  redirect_url: z.url({ protocol: /^https?$/, error: 'redirect_url must be an http(s) URL' }).optional(),
  scopes: z.array(z.string().trim().min(1)).min(1).default(['openid', 'profile', 'email']),
  username_claim: claim('preferred_username'),
  name_claim: claim('name'),
  email_claim: claim('email'),
  groups_claim: z.string().trim().min(1).regex(/^[^.\s]+(\.[^.\s]+)*$/, { error: 'groups_claim must be a dotted claim path' }).optional(),
  own_mfa: z.boolean({ error: 'own_mfa must be true or false' }).default(false),
});

const providersSchema = z.record(
  z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/),
  providerSchema,
  { error: (issue) => (issue.code === 'invalid_key' ? 'provider ids are letters, digits, "-" and "_"' : undefined) },
);

/**
 * `GANTRY_OIDC_PROVIDERS`: a JSON object keyed by provider id. Messages name the field, never
 * its value (the object holds client secrets).
 */
export const oidcProvidersEnv = z
  .string()
  .optional()
  .transform((v, ctx) => {
    if (v === undefined || v.trim() === '') return {};
    try {
      return JSON.parse(v) as unknown;
    } catch {
      ctx.addIssue({ code: 'custom', message: 'expected a JSON object keyed by provider id' });
      return z.NEVER;
    }
  })
  .pipe(providersSchema);

/** The providers in configuration order, with defaults filled in. */
export function toOidcProviders(parsed: z.output<typeof oidcProvidersEnv>, webHost: string): OidcProviderConfig[] {
  return Object.entries(parsed).map(([id, p]) => ({
    id,
    displayName: p.display_name,
    color: p.color,
    icon: p.icon,
    providerUrl: p.provider_url,
    clientId: p.client_id,
    clientSecret: p.client_secret,
    redirectUrl: p.redirect_url ?? (webHost ? `${webHost}/api/auth/oidc/${id}/redirect` : undefined),
    scopes: p.scopes.includes('openid') ? p.scopes : ['openid', ...p.scopes],
    usernameClaim: p.username_claim,
    nameClaim: p.name_claim,
    emailClaim: p.email_claim,
    groupsClaim: p.groups_claim,
    allowInsecureHttp: isLoopbackHttp(p.provider_url),
    ownMfa: p.own_mfa,
  }));
}
