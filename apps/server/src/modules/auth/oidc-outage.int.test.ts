import { ErrorCodes } from '@gantry/contracts';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines, useTestApp, type TestContext } from '../../test/harness.js';
import { startOidcProvider, type FakeOidcProvider } from '../../test/oidc-provider.js';
import { OIDC_FLOW_COOKIE } from './oidc.routes.js';

/** A loopback port nothing listens on (taken, then given back). */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** The sign-in page the browser is sent back to: its ?error=, ?code= and ?provider=. */
function loginPage(res: Awaited<ReturnType<TestContext['app']['inject']>>) {
  expect(res.statusCode).toBe(302);
  const location = new URL(res.headers.location as string, 'http://x');
  expect(location.pathname).toBe('/auth/login');
  return { raw: res.headers.location as string, error: location.searchParams.get('error'), code: location.searchParams.get('code'), provider: location.searchParams.get('provider') };
}

describe.each(engines)('an unreachable sign-in provider ($name)', (engine) => {
  let idp: FakeOidcProvider;
  let downPort: number;
  beforeAll(async () => {
    idp = await startOidcProvider();
    downPort = await closedPort();
  });
  afterAll(async () => {
    await idp?.close().catch(() => undefined);
  });
  const t = useTestApp(engine, {
    get GANTRY_OIDC_PROVIDERS() {
      const entry = (name: string, url: string) => ({ display_name: name, provider_url: url, client_id: idp.clientId, client_secret: idp.clientSecret });
      return JSON.stringify({ down: entry('Corp SSO', `http://127.0.0.1:${downPort}`), test: entry('Test IdP', idp.issuer) });
    },
  });

  it('is named on the sign-in page with a stable code, never with its address or the socket error', async () => {
    const res = await t().app.inject({ method: 'GET', url: '/api/auth/oidc/down/login' });
    const page = loginPage(res);
    expect(page.error).toBe('The sign-in provider Corp SSO could not be reached; please try again later');
    expect(page.code).toBe(ErrorCodes.oidcProviderUnreachable);
    expect(page.provider).toBe('Corp SSO');
    expect(page.raw).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|fetch failed|connect/);
    expect(page.raw).not.toContain(String(downPort));
  });

  it('going down between the two redirects reads the same', async () => {
    const ctx = t();
    const start = await ctx.app.inject({ method: 'GET', url: '/api/auth/oidc/test/login' });
    expect(start.statusCode).toBe(302);
    const flow = start.cookies.find((c) => c.name === OIDC_FLOW_COOKIE)!.value;
    const approved = await fetch(new URL(start.headers.location as string), { redirect: 'manual' });
    const back = new URL(approved.headers.get('location')!);
    const port = new URL(idp.issuer).port;
    await idp.close();
    // The token endpoint is gone now: the callback cannot be checked.
    const res = await ctx.app.inject({ method: 'GET', url: back.pathname + back.search, cookies: { [OIDC_FLOW_COOKIE]: flow } });
    const page = loginPage(res);
    expect(page.code).toBe(ErrorCodes.oidcProviderUnreachable);
    expect(page.provider).toBe('Test IdP');
    expect(page.error).toBe('The sign-in provider Test IdP could not be reached; please try again later');
    expect(page.raw).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|fetch failed/);
    expect(page.raw).not.toContain(port);
  });
});
