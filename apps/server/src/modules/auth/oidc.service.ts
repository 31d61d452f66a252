import { ErrorCodes, userCreateSchema } from '@gantry/contracts';
import type { OidcProviderConfig } from '../../config/oidc-providers.js';
import type { Clock } from '../../platform/clock.js';
import type { SecretBox } from '../../platform/crypto.js';
import { ConflictError, NotFoundError } from '../../platform/errors.js';
import type { EventsService } from '../events/events.service.js';
import type { UserRow } from '../users/users.repository.js';
import type { UsersService } from '../users/users.service.js';
import type { MappingsService } from '../identity/mappings.service.js';
import type { AuthService } from './auth.service.js';
import type { ExternalIdentity, OidcIdentitiesRepository } from './oidc-identities.repository.js';
import { ProviderRefusedError, type OidcChecks, type OidcClient } from './oidc-client.js';

/** How long the browser may spend at the provider between our two redirects. */
export const OIDC_FLOW_MS = 10 * 60_000;

/** A failure shown to the person signing in (on the sign-in page), never with internals. */
export class OidcSignInError extends Error {
  constructor(
    message: string,
    readonly extra: {
      /** A stable code (ErrorCodes) and its params, for the console to word in the user's language. */
      code?: string;
      params?: Record<string, string>;
      /** What went wrong underneath, for the server log only (addresses, library messages). */
      detail?: string;
    } = {},
  ) {
    super(message);
  }
}

/** The provider could not be reached: its name only, the library's reason to the log. */
function unreachable(p: OidcProviderConfig, err: unknown): OidcSignInError {
  return new OidcSignInError(`The sign-in provider ${p.displayName} could not be reached; please try again later`, {
    code: ErrorCodes.oidcProviderUnreachable,
    params: { provider: p.displayName },
    detail: reason(err),
  });
}

/** What travels, sealed, in the flow cookie between /login and /redirect. */
interface FlowState extends OidcChecks {
  provider: string;
  redirect: string;
  expires: number;
}

interface Client {
  ip: string;
  userAgent: string;
}

/** The public face of a provider, for the sign-in page (no secrets, no URLs). */
export interface PublicProvider {
  id: string;
  name: string;
  color: string;
  icon: string;
}

/**
 * Sign-in with external OpenID Connect providers. The state, nonce, PKCE verifier and the page
 * to land on travel in a cookie sealed with the server's master key (AES-GCM): nothing is kept
 * on one node, so any node sharing the database and key can finish a flow another one began.
 */
export class OidcService {
  private readonly byId: Map<string, OidcProviderConfig>;

  constructor(
    providers: OidcProviderConfig[],
    private readonly client: OidcClient,
    private readonly users: UsersService,
    private readonly identities: OidcIdentitiesRepository,
    private readonly auth: AuthService,
    private readonly events: EventsService,
    private readonly box: SecretBox,
    private readonly clock: Clock,
    /** Group to role mapping, applied at each sign-in of a provider that names a groups claim. */
    private readonly mappings?: Pick<MappingsService, 'applyAtSignIn'>,
  ) {
    this.byId = new Map(providers.map((p) => [p.id, p]));
  }

  list(): PublicProvider[] {
    return [...this.byId.values()].map((p) => ({ id: p.id, name: p.displayName, color: p.color, icon: p.icon }));
  }

  /** The provider, or 404 for an id the configuration does not know. */
  provider(id: string): OidcProviderConfig {
    const p = this.byId.get(id);
    if (!p) throw new NotFoundError('Unknown sign-in provider', { code: ErrorCodes.signInProviderUnknown });
    return p;
  }

  /** The provider's authorization URL and the sealed flow state for the cookie. */
  async begin(providerId: string, redirect: string | undefined, origin: string): Promise<{ url: string; flow: string }> {
    const p = this.provider(providerId);
    const checks = this.client.newChecks();
    // Discovery (the provider's metadata) happens here: a failure is the provider not answering.
    const url = await this.client.authorizationUrl(p, redirectUri(p, origin), checks).catch((err: unknown) => {
      throw unreachable(p, err);
    });
    const state: FlowState = { ...checks, provider: p.id, redirect: safeRedirect(redirect), expires: this.clock.now().getTime() + OIDC_FLOW_MS };
    return { url: url.href, flow: this.box.seal(JSON.stringify(state)) };
  }

  /**
   * Finishes the flow: validates the callback, finds or creates the external user and opens a
   * session like the password does (waiting for the code when the user has two-factor sign-in).
   */
  async finish(providerId: string, query: string, flow: string | undefined, origin: string, client: Client): Promise<{ session: string; redirect: string }> {
    const p = this.provider(providerId);
    const state = this.openFlow(flow, p.id);
    const callback = new URL(redirectUri(p, origin));
    callback.search = query;
    let claims: Record<string, unknown>;
    try {
      claims = await this.client.claims(p, callback, state);
    } catch (err) {
      if (err instanceof ProviderRefusedError) throw new OidcSignInError(`${p.displayName} refused the sign-in: ${err.message}`);
      if (isNetworkFailure(err)) throw unreachable(p, err);
      throw new OidcSignInError(`Sign-in with ${p.displayName} failed: ${reason(err)}`);
    }
    let user = await this.userFor(p, claims);
    if (p.groupsClaim && this.mappings) {
      // Before the session opens: a lost admin flag signs the user out everywhere else.
      await this.mappings.applyAtSignIn(user.id, p.id, claimGroups(claims, p.groupsClaim));
      user = (await this.users.findById(user.id)) ?? user;
    }
    return { session: await this.auth.openExternalSession(user, client, { mfaByProvider: p.ownMfa }), redirect: state.redirect };
  }

  private openFlow(flow: string | undefined, providerId: string): FlowState {
    let state: FlowState | undefined;
    try {
      state = flow ? (JSON.parse(this.box.open(flow)) as FlowState) : undefined;
    } catch {
      state = undefined;
    }
    if (!state || state.provider !== providerId || state.expires < this.clock.now().getTime()) {
      throw new OidcSignInError('The sign-in expired or was started in another browser; please try again');
    }
    return state;
  }

  /**
   * The external user these claims stand for; never a local (password) account. The binding to
   * the provider's (issuer, subject) decides; usernames and emails are only claims. Without a
   * binding, an existing account is linked only when it is external, not yet bound at this
   * provider, and the provider vouches for its email (`email_verified`).
   */
  private async userFor(p: OidcProviderConfig, claims: Record<string, unknown>): Promise<UserRow> {
    const identity = identityOf(p, claims);
    const boundId = await this.identities.userIdOf(identity);
    const bound = boundId === undefined ? undefined : await this.users.findById(boundId);
    if (bound) {
      if (bound.external !== 1) throw new OidcSignInError(LOCAL_ACCOUNT);
      return bound;
    }
    const email = claimText(claims, p.emailClaim);
    const username = claimText(claims, p.usernameClaim) ?? email?.split('@')[0];
    if (!username) throw new OidcSignInError(`${p.displayName} did not send the "${p.usernameClaim}" claim`);
    const found = (await this.users.findByLogin(username)) ?? (email ? await this.users.findByLogin(email) : undefined);
    if (found) return this.link(p, identity, found, email, claims);
    if (!email) throw new OidcSignInError(`${p.displayName} did not send the "${p.emailClaim}" claim`);
    const input = userCreateSchema.safeParse({ username, name: claimText(claims, p.nameClaim) ?? username, email, admin: false, external: true, alert: false });
    if (!input.success) throw new OidcSignInError(`${p.displayName} sent an unusable profile: ${input.error.issues[0]?.message ?? 'invalid'}`);
    let created: UserRow;
    try {
      created = await this.users.create(input.data);
    } catch (err) {
      if (err instanceof ConflictError) throw new OidcSignInError(`${err.message}; ask an administrator`);
      throw err;
    }
    // Only a sign-in racing this one for the same subject can have bound it meanwhile: that one
    // made the user, so this one takes its new account back.
    if (!(await this.identities.bind(identity, created.id, this.clock.now().toISOString()))) {
      await this.users.deleteByAdmin(created.id);
      throw new OidcSignInError('Sign-in failed; please try again');
    }
    await this.record(created, `User ${created.username} created by sign-in with ${p.displayName}`);
    return created;
  }

  /** Binds an existing account to this identity, when the rules allow it (see userFor). */
  private async link(p: OidcProviderConfig, identity: ExternalIdentity, user: UserRow, email: string | undefined, claims: Record<string, unknown>): Promise<UserRow> {
    if (user.external !== 1) throw new OidcSignInError(LOCAL_ACCOUNT);
    const refused = `An account with this username or email exists and is not linked to this ${p.displayName} sign-in; ask an administrator`;
    if (await this.identities.isBound(p.id, user.id)) throw new OidcSignInError(refused);
    const sameEmail = email !== undefined && email.toLowerCase() === user.email.toLowerCase();
    if (!sameEmail || !emailVerified(claims)) {
      throw new OidcSignInError(`An account with this username or email exists; ${p.displayName} must confirm its email address as verified to link it`);
    }
    if (!(await this.identities.bind(identity, user.id, this.clock.now().toISOString()))) throw new OidcSignInError(refused);
    await this.record(user, `User ${user.username} linked to sign-in with ${p.displayName}`);
    return user;
  }

  private record(user: UserRow, description: string): Promise<unknown> {
    return this.events.record({ projectId: null, userId: user.id, objectType: 'user', objectId: user.id, description });
  }
}

const LOCAL_ACCOUNT = 'A local account with this username or email already exists; sign in with its password';

/** The provider's stable id for the person: the id_token's issuer and subject. */
function identityOf(p: OidcProviderConfig, claims: Record<string, unknown>): ExternalIdentity {
  const issuer = claims.iss;
  const subject = claims.sub;
  if (typeof issuer !== 'string' || !issuer || typeof subject !== 'string' || !subject) {
    throw new OidcSignInError(`${p.displayName} did not send the "iss" and "sub" claims`);
  }
  return { provider: p.id, issuer, subject };
}

/** `email_verified` as the standard says (a boolean); some providers send the text "true". */
function emailVerified(claims: Record<string, unknown>): boolean {
  return claims.email_verified === true || claims.email_verified === 'true';
}

/** Where the provider sends the browser back: configured, or this server's own callback. */
function redirectUri(p: OidcProviderConfig, origin: string): string {
  // Through URL, so it reads the same when sent as when rebuilt from the callback (":80" dropped).
  return new URL(p.redirectUrl ?? `${origin}/api/auth/oidc/${encodeURIComponent(p.id)}/redirect`).href;
}

/**
 * Only a path on this site: one leading '/', not '//' or '/\' (which browsers read as another
 * host), no control characters. Anything else lands on the start page.
 */
export function safeRedirect(value: string | undefined): string {
  if (!value || !value.startsWith('/') || value.startsWith('//') || value.startsWith('/\\')) return '/';
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(value)) return '/';
  return value;
}

/**
 * The groups at a dotted claim path (`groups`, `realm_access.roles`): an array's strings, or a
 * single string; nothing when the claim is missing or of another type.
 */
export function claimGroups(claims: Record<string, unknown>, path: string): string[] {
  let v: unknown = claims;
  for (const key of path.split('.')) {
    if (!v || typeof v !== 'object' || Array.isArray(v) || !Object.hasOwn(v, key)) return [];
    v = (v as Record<string, unknown>)[key];
  }
  if (typeof v === 'string') return v.trim() ? [v.trim()] : [];
  return Array.isArray(v) ? v.filter((g): g is string => typeof g === 'string' && g.trim() !== '').map((g) => g.trim()) : [];
}

function claimText(claims: Record<string, unknown>, name: string): string | undefined {
  const v = claims[name];
  return typeof v === 'string' && v.trim() ? v.trim() : undefined;
}

/** Socket-level failures of Node's fetch (undici): the provider did not answer at all. */
const NETWORK_CODES = /^(ECONNREFUSED|ECONNRESET|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|EPIPE|UND_ERR_\w+)$/;

/** Whether a failure, or one of its causes, is the network's (refused, unresolvable, timed out). */
function isNetworkFailure(err: unknown): boolean {
  for (let e = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && NETWORK_CODES.test(code)) return true;
    if ((e instanceof TypeError && e.message === 'fetch failed') || e.name === 'TimeoutError' || e.name === 'AbortError') return true;
  }
  return false;
}

/** A one-line reason from the library, without stack or response bodies (for the log). */
function reason(err: unknown): string {
  // The provider's own OAuth error code and description (ResponseBodyError) say more than the library.
  const { error, error_description: description } = err as { error?: unknown; error_description?: unknown };
  const oauth = typeof error === 'string' ? `${error}${typeof description === 'string' ? ` (${description})` : ''}` : undefined;
  // openid-client wraps the precise check that failed ("unexpected nonce", ...) as the cause.
  const cause = err instanceof Error && err.cause instanceof Error ? err.cause : undefined;
  const message = oauth ?? cause?.message ?? (err instanceof Error ? err.message : 'unknown error');
  return message.split('\n')[0]!.slice(0, 200);
}
