import { CSRF_HEADER, Messages, SESSION_COOKIE, ErrorCodes } from '@gantry/contracts';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { UserRow } from '../modules/users/users.repository.js';
import { randomToken, sha256 } from './crypto.js';
import { ForbiddenError, UnauthorizedError } from './errors.js';

/** Resolves credentials to a user; provided by the auth and tokens modules. */
export interface Authenticator {
  /**
   * `verified` is false while the session still waits for the second sign-in step; `mfaByProvider`:
   * its sign-in provider checks a second factor itself.
   */
  fromSession(value: string): Promise<{ user: UserRow; verified: boolean; mfaByProvider?: boolean } | null>;
  fromToken(value: string): Promise<UserRow | null>;
  /** Whether the caller must set up two-factor sign-in before anything else (the admin's requirement). */
  enrolmentRequired?(user: UserRow, mfaByProvider: boolean): Promise<boolean>;
}

declare module 'fastify' {
  interface FastifyRequest {
    user: UserRow | null;
    authKind: 'session' | 'token' | null;
    /** The session cookie is valid but waits for the second sign-in step (TOTP): no user yet. */
    secondFactorPending: boolean;
    /** The admin requires two-factor sign-in of this user, who has not set it up yet. */
    enrolmentPending: boolean;
  }
  interface FastifyContextConfig {
    /** Reachable without signing in. */
    public?: boolean;
    /**
     * Called by other servers (incoming webhooks): no caller identity is resolved (an Authorization
     * header belongs to the webhook, not to us) and the browser cross-site check does not apply.
     */
    webhook?: boolean;
    /**
     * Called by remote runners with their own bearer token (resolved by the route): no user is
     * resolved, so a user's session or API token never opens these routes.
     */
    runner?: boolean;
    /** Also reachable by a session that still waits for the second sign-in step. */
    secondFactorPending?: boolean;
    /**
     * Also reachable by a session whose user must set up two-factor sign-in first (never by an API
     * token); `own`: only for the user's own id (the route's `:id`).
     */
    enrolment?: true | 'own';
  }
}

const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Who is calling: a bearer token (scheme case-insensitive) or the session cookie. Routes are
 * private unless their config says `public`; cookie calls that change state must come from our
 * own origin (the console also sends a header that a cross-site form cannot).
 *
 * A session waiting for its second sign-in step (TOTP) gets 401 TOTP_REQUIRED on every private
 * route except those marked `secondFactorPending`. Bearer tokens never ask for the code: a token is
 * created only by a fully signed-in session, so it already stands for both factors, and the
 * scripts that hold one cannot answer a prompt.
 *
 * A user the admin requires to use two-factor sign-in who has not set it up gets 403
 * totp_enrolment_required on every private route except those marked `enrolment` (setting it up,
 * their own info), and always with an API token: until a code is confirmed, a token would be a
 * way around the requirement.
 */
export function registerAuth(app: FastifyInstance, auth: Authenticator, webHost: string): void {
  app.decorateRequest('user', null);
  app.decorateRequest('authKind', null);
  app.decorateRequest('secondFactorPending', false);
  app.decorateRequest('enrolmentPending', false);

  app.addHook('onRequest', async (request) => {
    if (request.routeOptions.config.webhook || request.routeOptions.config.runner) return;
    const header = request.headers.authorization;
    const bearer = header?.match(/^bearer\s+(\S+)\s*$/i)?.[1];
    if (bearer) {
      request.user = await auth.fromToken(bearer);
      if (!request.user) throw new UnauthorizedError('Invalid or expired token', { code: ErrorCodes.tokenInvalid });
      request.authKind = 'token';
      request.enrolmentPending = (await auth.enrolmentRequired?.(request.user, false)) ?? false;
      return;
    }
    const cookie = request.cookies[SESSION_COOKIE];
    if (cookie) {
      const session = await auth.fromSession(cookie);
      if (session?.verified) {
        request.user = session.user;
        request.authKind = 'session';
        request.enrolmentPending = (await auth.enrolmentRequired?.(session.user, session.mfaByProvider ?? false)) ?? false;
      } else if (session) {
        request.secondFactorPending = true;
      }
    }
  });

  app.addHook('preValidation', async (request) => {
    // The console's files are public; everything under /api is private unless marked public.
    if (!request.url.startsWith('/api/') && request.url !== '/api') return;
    if (request.routeOptions.config.webhook || request.routeOptions.config.runner) return;
    if (UNSAFE.has(request.method) && request.authKind !== 'token' && isCrossSite(request, webHost)) {
      throw new ForbiddenError(Messages.crossSite, { code: ErrorCodes.crossSite });
    }
    const { config } = request.routeOptions;
    if (config.public) return;
    if (request.user) {
      if (request.enrolmentPending && !enrolmentAllows(request)) {
        throw new ForbiddenError(Messages.totpEnrolmentRequired, { code: ErrorCodes.totpEnrolmentRequired });
      }
      return;
    }
    // The console shows the code screen on this error (spec: "unverified when a 401 carries TOTP_REQUIRED").
    if (request.secondFactorPending) {
      if (config.secondFactorPending) return;
      throw new UnauthorizedError(Messages.totpRequired, { code: ErrorCodes.totpRequired });
    }
    throw new UnauthorizedError();
  });
}

/** Whether a user who must set up two-factor sign-in may call this route now (sessions only). */
function enrolmentAllows(request: FastifyRequest): boolean {
  const { enrolment } = request.routeOptions.config;
  if (request.authKind !== 'session' || !enrolment) return false;
  if (enrolment === true) return true;
  const id = (request.params as Record<string, unknown> | undefined)?.id;
  return String(id) === String(request.user?.id);
}

function isCrossSite(request: FastifyRequest, webHost: string): boolean {
  if (request.headers[CSRF_HEADER]) return false;
  const origin = request.headers.origin;
  if (origin) {
    if (webHost && origin === new URL(webHost).origin) return false;
    try {
      // Compare through URL so default ports (":80", ":443") normalise the same way on both sides.
      const originUrl = new URL(origin);
      return originUrl.host !== new URL(`${originUrl.protocol}//${request.headers.host ?? ''}`).host;
    } catch {
      return true;
    }
  }
  // No Origin: a browser marks cross-site requests with Sec-Fetch-Site; other clients are not
  // at risk of request forgery, and SameSite=Lax keeps the cookie off cross-site posts anyway.
  return request.headers['sec-fetch-site'] === 'cross-site';
}

/** The signed-in user; routes behind the auth hook always have one. */
export function requireUser(request: FastifyRequest): UserRow {
  if (!request.user) throw new UnauthorizedError();
  return request.user;
}

export function requireAdmin(request: FastifyRequest): UserRow {
  const user = requireUser(request);
  if (user.admin !== 1) throw new ForbiddenError();
  return user;
}

export function setSessionCookie(request: FastifyRequest, reply: FastifyReply, value: string, webHost: string): void {
  reply.setCookie(SESSION_COOKIE, value, {
    path: '/',
    httpOnly: true,
    sameSite: 'lax',
    secure: request.protocol === 'https' || webHost.startsWith('https://'),
    maxAge: 7 * 24 * 3600,
  });
}

/** The bearer token's value when the caller came with one (not with a session cookie). */
export function callerToken(request: FastifyRequest): string | undefined {
  if (request.authKind !== 'token') return undefined;
  return request.headers.authorization?.match(/^bearer\s+(\S+)\s*$/i)?.[1];
}

/** The session cookie's value when the caller signed in with one (not with a bearer token). */
export function callerSession(request: FastifyRequest): string | undefined {
  return request.authKind === 'session' ? request.cookies[SESSION_COOKIE] : undefined;
}

/** The id a session is stored under: only the hash of the cookie value, so a database leak leaks no session. */
export const sessionIdOf = (value: string): string => sha256(value);

/** A fresh session cookie value with the id it is stored under. */
export function newSessionValue(): { value: string; id: string } {
  const value = randomToken(48);
  return { value, id: sessionIdOf(value) };
}

export function clearSessionCookie(reply: FastifyReply): void {
  reply.clearCookie(SESSION_COOKIE, { path: '/' });
}
