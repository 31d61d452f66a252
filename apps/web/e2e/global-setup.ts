import { E2E_OIDC } from '../playwright.config';
import { startOidcProvider } from '../../server/src/test/oidc-provider';

/** Who signs in at the fake provider in the browser tests. */
export const E2E_EXTERNAL_USER = { sub: 'e2e-external', preferred_username: 'erin', email: 'erin@idp.example', name: 'Erin External', groups: ['gantry-e2e-devs'] };

/** Starts the fake OpenID Connect provider the e2e server is configured with; returns its teardown. */
export default async function globalSetup(): Promise<() => Promise<void>> {
  const idp = await startOidcProvider({ port: E2E_OIDC.port, clientId: E2E_OIDC.clientId, clientSecret: E2E_OIDC.clientSecret });
  idp.user = { ...E2E_EXTERNAL_USER };
  return () => idp.close();
}
