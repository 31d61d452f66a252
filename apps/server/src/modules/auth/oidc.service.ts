import { userCreateSchema } from '@gantry/contracts';
import type { OidcProviderConfig } from '../../config/oidc-providers.js';
import type { Clock } from '../../platform/clock.js';
import type { SecretBox } from '../../platform/crypto.js';
import { ConflictError, NotFoundError } from '../../platform/errors.js';
import type { EventsService } from '../events/events.service.js';
import type { UserRow } from '../users/users.repository.js';
import type { UsersService } from '../users/users.service.js';
import type { AuthService } from './auth.service.js';
import { ProviderRefusedError, type OidcChecks, type OidcClient } from './oidc-client.js';

/** How long the browser may spend at the provider between our two redirects. */
export const OIDC_FLOW_MS = 10 * 60_000;

/** A failure shown to the person signing in (on the sign-in page), never with internals. */
export class OidcSignInError extends Error {}

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
    private readonly auth: AuthService,
    private readonly events: EventsService,
    private readonly box: SecretBox,
    private readonly clock: Clock,
  ) {
    this.byId = new Map(providers.map((p) => [p.id, p]));
  }

  list(): PublicProvider[] {
    return [...this.byId.values()].map((p) => ({ id: p.id, name: p.displayName, color: p.color, icon: p.icon }));
  }

  /** The provider, or 404 for an id the configuration does not know. */
  provider(id: string): OidcProviderConfig {
    const p = this.byId.get(id);
    if (!p) throw new NotFoundError('Unknown sign-in provider');
    return p;
  }

  /** The provider's authorization URL and the sealed flow state for the cookie. */
  async begin(providerId: string, redirect: string | undefined, origin: string): Promise<{ url: string; flow: string }> {
    const p = this.provider(providerId);
    const checks = this.client.newChecks();
    const url = await this.client.authorizationUrl(p, redirectUri(p, origin), checks).catch((err: unknown) => {
      throw new OidcSignInError(`${p.displayName} cannot be reached: ${reason(err)}`);
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
      throw new OidcSignInError(`Sign-in with ${p.displayName} failed: ${reason(err)}`);
    }
    const user = await this.userFor(p, claims);
    return { session: await this.auth.openExternalSession(user, client), redirect: state.redirect };
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

  /** The external user these claims stand for; never a local (password) account. */
  private async userFor(p: OidcProviderConfig, claims: Record<string, unknown>): Promise<UserRow> {
    const email = claimText(claims, p.emailClaim);
    const username = claimText(claims, p.usernameClaim) ?? email?.split('@')[0];
    if (!username) throw new OidcSignInError(`${p.displayName} did not send the "${p.usernameClaim}" claim`);
    const found = (await this.users.findByLogin(username)) ?? (email ? await this.users.findByLogin(email) : undefined);
    if (found) {
      if (found.external !== 1) {
        throw new OidcSignInError('A local account with this username or email already exists; sign in with its password');
      }
      return found;
    }
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
    await this.events.record({
      projectId: null,
      userId: created.id,
      objectType: 'user',
      objectId: created.id,
      description: `User ${created.username} created by sign-in with ${p.displayName}`,
    });
    return created;
  }
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

function claimText(claims: Record<string, unknown>, name: string): string | undefined {
  const v = claims[name];
  return typeof v === 'string' && v.trim() ? v.trim() : undefined;
}

/** A one-line reason from the library, without stack or response bodies. */
function reason(err: unknown): string {
  // The provider's own OAuth error code and description (ResponseBodyError) say more than the library.
  const { error, error_description: description } = err as { error?: unknown; error_description?: unknown };
  const oauth = typeof error === 'string' ? `${error}${typeof description === 'string' ? ` (${description})` : ''}` : undefined;
  // openid-client wraps the precise check that failed ("unexpected nonce", ...) as the cause.
  const cause = err instanceof Error && err.cause instanceof Error ? err.cause : undefined;
  const message = oauth ?? cause?.message ?? (err instanceof Error ? err.message : 'unknown error');
  return message.split('\n')[0]!.slice(0, 200);
}
