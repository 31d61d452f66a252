import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { setSessionCookie } from '../../platform/auth.js';
import { AppError } from '../../platform/errors.js';
import { OIDC_FLOW_MS, OidcSignInError, type OidcService } from './oidc.service.js';
import { redirect } from '../../platform/openapi-document.js';

/** Holds the sealed flow state between the two redirects; only sent to the OIDC routes. */
export const OIDC_FLOW_COOKIE = 'gantry_oidc';
const FLOW_COOKIE_PATH = '/api/auth/oidc';

const params = z.object({ providerId: z.string() });

/**
 * Browser redirects for external sign-in. An unknown provider answers 404; every other failure
 * goes back to the sign-in page with `?error=` (a short message, never internals).
 */
export function oidcRoutes(oidc: OidcService, opts: { webHost: string }): FastifyPluginAsyncZod {
  return async (app) => {
    const originOf = (request: FastifyRequest) => opts.webHost || `${request.protocol}://${request.host}`;

    app.get(
      '/auth/oidc/:providerId/login',
      {
        config: { public: true },
        schema: {
          tags: ['auth'],
          params,
          querystring: z.object({ redirect: z.string().optional() }),
          response: { 302: redirect("To the provider's sign-in page, or back to Gantry's with `?error=`") },
        },
      },
      async (request, reply) => {
        oidc.provider(request.params.providerId);
        try {
          const { url, flow } = await oidc.begin(request.params.providerId, request.query.redirect, originOf(request));
          reply.setCookie(OIDC_FLOW_COOKIE, flow, {
            path: FLOW_COOKIE_PATH,
            httpOnly: true,
            // Lax: the provider's redirect back is a top-level GET from another site.
            sameSite: 'lax',
            secure: isSecure(request, opts.webHost),
            maxAge: OIDC_FLOW_MS / 1000,
          });
          return reply.redirect(url, 302);
        } catch (err) {
          return toLoginPage(reply, request.log, err);
        }
      },
    );

    app.get(
      '/auth/oidc/:providerId/redirect',
      {
        config: { public: true },
        schema: {
          tags: ['auth'],
          params,
          response: { 302: redirect('Signed in: to the page asked for; refused: to the sign-in page with `?error=`') },
        },
      },
      async (request, reply) => {
        oidc.provider(request.params.providerId);
        // The flow is single use: whatever happens next, its cookie is gone.
        reply.clearCookie(OIDC_FLOW_COOKIE, { path: FLOW_COOKIE_PATH });
        try {
          const query = request.url.includes('?') ? request.url.slice(request.url.indexOf('?')) : '';
          const client = { ip: request.ip, userAgent: request.headers['user-agent'] ?? '' };
          const done = await oidc.finish(
            request.params.providerId,
            query,
            request.cookies[OIDC_FLOW_COOKIE],
            originOf(request),
            client,
          );
          setSessionCookie(request, reply, done.session, opts.webHost);
          return reply.redirect(done.redirect, 302);
        } catch (err) {
          return toLoginPage(reply, request.log, err);
        }
      },
    );
  };
}

function isSecure(request: FastifyRequest, webHost: string): boolean {
  return request.protocol === 'https' || webHost.startsWith('https://');
}

/**
 * Back to the sign-in page with a message (`?error=`, English), and its stable code and params
 * when it has one (`?code=&provider=`) for the console to word; internals go to the log only.
 */
function toLoginPage(reply: FastifyReply, log: FastifyBaseLogger, err: unknown): FastifyReply {
  let message = 'Sign-in failed; please try again';
  const query = new URLSearchParams();
  if (err instanceof OidcSignInError || err instanceof AppError) message = err.message;
  else log.error({ reason: err instanceof Error ? err.message : String(err) }, 'external sign-in failed');
  query.set('error', message);
  if (err instanceof OidcSignInError) {
    const { code, params, detail } = err.extra;
    log.warn({ reason: err.message, ...(detail ? { detail } : {}) }, 'external sign-in refused');
    if (code) query.set('code', code);
    for (const [k, v] of Object.entries(params ?? {})) query.set(k, v);
  } else if (err instanceof AppError && typeof err.details?.code === 'string') query.set('code', err.details.code);
  return reply.redirect(`/auth/login?${query.toString()}`, 302);
}
