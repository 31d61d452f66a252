import { SESSION_COOKIE } from '@gantry/contracts';
import { describe, expect, it } from 'vitest';
import { sha256 } from '../../platform/crypto.js';
import { callerFor, engines, uniq, useTestApp, type TestContext } from '../../test/harness.js';
import { type FakeOidcProvider, useOidcProvider } from '../../test/oidc-provider.js';
import { OIDC_FLOW_COOKIE } from '../auth/oidc.routes.js';

/** Two providers on one fake issuer: `trusted` is marked as doing its own MFA, `plain` is not. */
function providersEnv(idp: FakeOidcProvider): string {
  const entry = { provider_url: idp.issuer, client_id: idp.clientId, client_secret: idp.clientSecret };
  return JSON.stringify({
    trusted: { ...entry, display_name: 'Trusted IdP', own_mfa: true },
    plain: { ...entry, display_name: 'Plain IdP' },
  });
}

/** Signs a new external user in through `provider`; answers the session cookie's value. */
async function signIn(ctx: TestContext, idp: FakeOidcProvider, provider: string): Promise<string> {
  const name = uniq('ext');
  idp.user = { sub: `sub-${name}`, preferred_username: name, email: `${name}@idp.example`, name: `External ${name}` };
  const start = await ctx.app.inject({ method: 'GET', url: `/api/auth/oidc/${provider}/login` });
  expect(start.statusCode).toBe(302);
  const flow = start.cookies.find((c) => c.name === OIDC_FLOW_COOKIE)!.value;
  const approved = await fetch(new URL(start.headers.location as string), { redirect: 'manual' });
  const back = new URL(approved.headers.get('location')!);
  const done = await ctx.app.inject({
    method: 'GET',
    url: back.pathname + back.search,
    cookies: { [OIDC_FLOW_COOKIE]: flow },
  });
  expect(done.statusCode).toBe(302);
  return done.cookies.find((c) => c.name === SESSION_COOKIE && c.value)!.value;
}

describe.each(engines)('enforced two-factor sign-in and OpenID Connect ($name)', (engine) => {
  const provider = useOidcProvider();
  const t = useTestApp(engine, {
    GANTRY_TOTP_REQUIRED: 'all',
    get GANTRY_OIDC_PROVIDERS() {
      return providersEnv(provider());
    },
  });

  it('exempts sessions of a provider marked as doing its own MFA, and only those', async () => {
    const ctx = t();
    const trusted = callerFor(ctx, {
      id: 0,
      username: '',
      password: '',
      cookie: await signIn(ctx, provider(), 'trusted'),
    });
    expect((await trusted.get('/api/projects')).statusCode).toBe(200);
    const row = await ctx.db.db
      .selectFrom('session')
      .select('mfa_by_provider')
      .where('id', '=', sha256(trusted.cookie))
      .executeTakeFirstOrThrow();
    expect(row.mfa_by_provider).toBe(1);

    const plain = callerFor(ctx, { id: 0, username: '', password: '', cookie: await signIn(ctx, provider(), 'plain') });
    const blocked = await plain.get('/api/projects');
    expect(blocked.statusCode).toBe(403);
    expect(blocked.json()).toEqual({ error: 'Set up two-factor sign-in to continue', code: 'totp_enrolment_required' });
    // An external user has no password here: the session alone starts the method.
    const me = (await plain.get('/api/user')).json<{ id: number }>();
    const started = await plain.post(`/api/users/${me.id}/2fas/totp`, {});
    expect(started.statusCode).toBe(201);
  });
});
