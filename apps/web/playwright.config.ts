import os from 'node:os';
import path from 'node:path';
import { defineConfig } from '@playwright/test';

const root = path.resolve(import.meta.dirname, '../..');
const port = Number(process.env.GANTRY_E2E_PORT ?? 3917);
export const E2E_ADMIN = { login: 'admin', password: 'admin-pass-e2e', name: 'Ada Admin' };
/** Where e2e/repo.ts makes the local repositories templates run from; the server allows it (GANTRY_ALLOWED_LOCAL_PATHS). */
export const E2E_REPOS = path.join(os.tmpdir(), 'gantry-e2e-repos');
/** The fake OpenID Connect provider that e2e/global-setup.ts starts on a fixed port. */
export const E2E_OIDC = { port: Number(process.env.GANTRY_E2E_OIDC_PORT ?? 39555), clientId: 'gantry-e2e', clientSecret: 'e2e-client-secret', name: 'Test IdP' };

/**
 * Specs that change what every session of the server sees (two-factor required of everyone, an
 * app switched off, group mappings, global runners and notification destinations) or read what
 * every session does (the audit trail's newest entry, the nodes): run one at a time, after the
 * others, so no other spec runs beside them.
 */
const SERVER_WIDE = [
  'enforced-two-factor',
  'passkeys-enrolment',
  'apps',
  'identity-mappings',
  'oidc',
  'runners',
  'notifications',
  'audit',
  'audit-export',
  'cluster',
].map((name) => `${name}.spec.ts`);

/** Browser tests run against the built server on a fresh SQLite data dir (build first). */
export default defineConfig({
  testDir: 'e2e',
  // Pictures for the docs, not a test: `npm run screenshots` (playwright.screenshots.config.ts).
  testIgnore: 'screenshots.spec.ts',
  globalSetup: './e2e/global-setup.ts',
  // Two browsers at once (each spec file in one of them); every spec makes its own projects and users.
  workers: Number(process.env.GANTRY_E2E_WORKERS ?? 2),
  projects: [
    { name: 'shared', testIgnore: ['screenshots.spec.ts', ...SERVER_WIDE] },
    { name: 'server-wide', testMatch: SERVER_WIDE, dependencies: ['shared'], workers: 1 },
  ],
  // One retry: a test that fails once under a loaded CI machine and then passes is reported as
  // flaky (scripts/test.mjs lists it) instead of failing the run; a test that fails twice fails.
  retries: Number(process.env.GANTRY_E2E_RETRIES ?? 1),
  timeout: 60_000,
  // Two browsers, a server and its tasks share CI's two cores: a slow answer is not a failure.
  expect: { timeout: 15_000 },
  reporter: 'list',
  outputDir: path.join(root, 'test-results'),
  use: {
    baseURL: `http://127.0.0.1:${port}`,
    browserName: 'chromium',
    launchOptions: {
      executablePath: '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    },
    screenshot: 'only-on-failure',
    viewport: { width: 1366, height: 860 },
    permissions: ['clipboard-read', 'clipboard-write'],
  },
  webServer: {
    command: 'node apps/server/bin/gantry.mjs server',
    cwd: root,
    url: `http://127.0.0.1:${port}/api/ping`,
    reuseExistingServer: false,
    timeout: 60_000,
    env: {
      GANTRY_PORT: String(port),
      GANTRY_HOST: '127.0.0.1',
      GANTRY_DATA_DIR: path.join(os.tmpdir(), `gantry-e2e-${process.pid}-${Date.now()}`),
      GANTRY_ADMIN: E2E_ADMIN.login,
      GANTRY_ADMIN_PASSWORD: E2E_ADMIN.password,
      GANTRY_ADMIN_EMAIL: 'admin@example.com',
      GANTRY_ADMIN_NAME: E2E_ADMIN.name,
      GANTRY_LOG_LEVEL: 'warn',
      // /srv: where the Semaphore backup fixture keeps its local repository (never cloned here).
      GANTRY_ALLOWED_LOCAL_PATHS: `${E2E_REPOS},/srv`,
      // Two-factor sign-in is offered; users who do not enable it sign in as before.
      GANTRY_TOTP_ENABLED: 'true',
      // notifications.spec.ts delivers to a receiver it starts on this machine.
      GANTRY_FETCH_ALLOWED_HOSTS: '127.0.0.1',
      // Discovery happens at the first external sign-in, after global-setup started the provider.
      GANTRY_OIDC_PROVIDERS: JSON.stringify({
        test: {
          display_name: E2E_OIDC.name,
          color: '#6a1b9a',
          provider_url: `http://127.0.0.1:${E2E_OIDC.port}`,
          client_id: E2E_OIDC.clientId,
          client_secret: E2E_OIDC.clientSecret,
          // Group mapping reads this claim (identity-mappings.spec.ts).
          groups_claim: 'groups',
        },
      }),
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      // A console built elsewhere (`vite build --outDir …`), so parallel work never serves a half-written dist.
      ...(process.env.GANTRY_E2E_WEB_DIST ? { GANTRY_WEB_DIST: process.env.GANTRY_E2E_WEB_DIST } : {}),
    },
  },
});
