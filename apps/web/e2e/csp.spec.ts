import { expect, test, type APIRequestContext, type Page } from '@playwright/test';
import { E2E_OIDC } from '../playwright.config';
import { openAccountSecurity, signIn, signInAsNewUser, unique } from './helpers';
import { shot } from './shots';

const H = { 'x-gantry-request': '1' };

declare global {
  interface Window {
    __cspViolations: string[];
  }
}

/**
 * Every CSP violation the page reports, from the DOM event and from the console. Awaited: the init
 * script must be registered before the first navigation, or that page has no `__cspViolations`.
 */
async function watchViolations(page: Page): Promise<string[]> {
  const fromConsole: string[] = [];
  page.on('console', (m) => {
    if (m.text().includes('Content Security Policy')) fromConsole.push(m.text());
  });
  await page.addInitScript(() => {
    window.__cspViolations = [];
    document.addEventListener('securitypolicyviolation', (e) => {
      window.__cspViolations.push(
        `${e.effectiveDirective} blocked ${e.blockedURI || 'inline'} (${e.sourceFile}:${e.lineNumber})`,
      );
    });
  });
  return fromConsole;
}

/** Opens `url` as a fresh page load (all scripts and styles again) and waits for its heading. */
async function visit(page: Page, url: string, heading: string | RegExp, name = url): Promise<void> {
  await page.goto(url);
  await expect(page.getByRole('heading', { level: 1, name: heading }), name).toBeVisible();
  await expectNoViolations(page, name);
}

async function expectNoViolations(page: Page, where: string): Promise<void> {
  expect(await page.evaluate(() => window.__cspViolations), where).toEqual([]);
}

/** A demo project (offline Bash and Ansible templates) and one finished run of its Bash template. */
async function demoWithTask(request: APIRequestContext) {
  const name = unique('CSP demo');
  const project = await (await request.post('/api/projects', { data: { name, demo: true }, headers: H })).json();
  const p = project.id as number;
  const templates = (await (await request.get(`/api/project/${p}/templates`)).json()) as Array<{
    id: number;
    name: string;
  }>;
  const bash = templates.find((t) => t.name.includes('Bash'))!;
  const task = await (
    await request.post(`/api/project/${p}/tasks`, { data: { template_id: bash.id }, headers: H })
  ).json();
  await expect
    .poll(async () => (await (await request.get(`/api/project/${p}/tasks/${task.id}`)).json()).status, {
      timeout: 30_000,
    })
    .toBe('success');
  return { p, name, template: bash, taskId: task.id as number };
}

function expectHardened(headers: Record<string, string>, what: string): void {
  const csp = headers['content-security-policy'] ?? '';
  for (const directive of [
    "default-src 'self'",
    "script-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "frame-ancestors 'none'",
    "connect-src 'self'",
  ]) {
    expect(csp, `${what}: ${directive}`).toContain(directive);
  }
  expect(csp, what).not.toMatch(/script-src[^;]*unsafe/);
  expect(headers['x-content-type-options'], what).toBe('nosniff');
  expect(headers['x-frame-options'], what).toBe('DENY');
  expect(headers['referrer-policy'], what).toBe('same-origin');
  // Plain http here: no HSTS, no upgrade of requests.
  expect(headers['strict-transport-security'], what).toBeUndefined();
  expect(csp, what).not.toContain('upgrade-insecure-requests');
}

test('the console, the API and raw logs carry the hardening headers', async ({ page }) => {
  await signIn(page);
  const { p, taskId } = await demoWithTask(page.request);
  const urls = [
    '/',
    '/project/1/history',
    '/api/ping',
    `/api/project/${p}/tasks/${taskId}/raw_output`,
    '/api/nothing-here',
  ];
  for (const url of urls) {
    const res = await page.request.get(url);
    expectHardened(res.headers(), url);
  }
});

test('every page of the console works under the CSP and reports no violation', async ({ page }) => {
  test.setTimeout(180_000);
  const fromConsole = await watchViolations(page);

  // Signed out: the sign-in page with its external provider button.
  await visit(page, '/auth/login', 'Sign in to Gantry');
  await expect(page.getByRole('link', { name: new RegExp(E2E_OIDC.name) })).toBeVisible();
  // The MUI theme applied: the primary button is coloured, not a bare browser button.
  const signInButton = page.getByRole('button', { name: 'Sign in', exact: true });
  expect(await signInButton.evaluate((b) => getComputedStyle(b).backgroundColor)).toBe('rgb(21, 101, 192)');
  await shot(page, 'csp-login');

  await signIn(page);
  await expectNoViolations(page, 'after sign-in');
  const d = await demoWithTask(page.request);
  const projectName = d.name;

  await visit(page, `/project/${d.p}/history`, projectName, 'history');
  await visit(page, `/project/${d.p}/activity`, projectName, 'activity');
  await visit(page, `/project/${d.p}/stats`, projectName, 'stats');
  await shot(page, 'csp-stats');
  await visit(page, `/project/${d.p}/settings`, projectName, 'settings');
  await visit(page, `/project/${d.p}/runners`, 'Runners', 'project runners');
  await visit(page, `/project/${d.p}/templates`, 'Task Templates', 'templates');
  await visit(page, `/project/${d.p}/templates/${d.template.id}/tasks`, d.template.name, 'template tasks');
  await visit(page, `/project/${d.p}/templates/${d.template.id}/details`, d.template.name, 'template details');

  // The task log dialog of a real run, fed over the WebSocket (connect-src).
  await page.goto(`/project/${d.p}/history?t=${d.taskId}`);
  await expect(page.getByTestId('task-log')).toContainText('from the demo');
  await expect(page.getByRole('dialog').getByTestId('task-status')).toHaveAttribute('data-status', 'success');
  await shot(page, 'csp-task-log');
  await expectNoViolations(page, 'task log');

  await visit(page, `/project/${d.p}/inventory`, 'Inventory', 'inventories');
  // CodeMirror editors inject their own style sheets.
  await page.getByRole('button', { name: 'Edit Localhost' }).click();
  await expect(page.getByRole('dialog').locator('.cm-editor').first()).toBeVisible();
  await expectNoViolations(page, 'inventory dialog');
  await visit(page, `/project/${d.p}/environment`, 'Variable Groups', 'environments');
  await page.getByRole('button', { name: 'Edit Demo variables' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'JSON' }).first().click();
  await expect(page.getByRole('dialog').locator('.cm-editor').first()).toBeVisible();
  await shot(page, 'csp-codemirror');
  await expectNoViolations(page, 'environment dialog');
  await visit(page, `/project/${d.p}/keys`, 'Keys', 'keys');
  await visit(page, `/project/${d.p}/repositories`, 'Repositories', 'repositories');
  await visit(page, `/project/${d.p}/team`, 'Team', 'team');
  await visit(page, `/project/${d.p}/schedules`, 'Schedule', 'schedules');
  await visit(page, `/project/${d.p}/integrations`, 'Integrations', 'integrations');
  await visit(page, '/project/new', 'New project', 'new project');
  await visit(page, '/project/restore', 'Restore project', 'restore project');

  // Admin pages.
  await visit(page, '/users', 'Users', 'users');
  await visit(page, '/apps', 'Applications', 'apps');
  await visit(page, '/runners', 'Runners', 'runners');
  await visit(page, '/tasks', 'Active tasks', 'active tasks');
  await visit(page, '/tokens', 'API tokens', 'tokens');
  await shot(page, 'csp-tokens');

  // The two-factor QR code is an image from the API.
  await signInAsNewUser(page, 'csp', 'Cass Csp', 'csp-pass-1');
  const dialog = await openAccountSecurity(page);
  await dialog.getByRole('button', { name: 'Enable two-factor sign-in' }).click();
  const enable = page.getByRole('dialog', { name: 'Enable two-factor sign-in' });
  await enable.getByLabel('Current password').fill('csp-pass-1');
  // Enrolment: the password first, then the QR code (an image from the API) and the setup key.
  await enable.getByRole('button', { name: 'Continue' }).click();
  const qr = enable.getByRole('img', { name: 'QR code for your authenticator app' });
  await expect.poll(() => qr.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBeGreaterThan(0);
  await expectNoViolations(page, 'two-factor QR code');

  expect(fromConsole).toEqual([]);

  // The policy is enforced and the watch above would have seen a breach: an injected inline script is refused.
  const ran = await page.evaluate(() => {
    const script = document.createElement('script');
    script.textContent = 'document.body.dataset.inlineRan = "yes"';
    document.head.appendChild(script);
    return document.body.dataset.inlineRan ?? 'no';
  });
  expect(ran).toBe('no');
  await expect
    .poll(() => page.evaluate(() => window.__cspViolations))
    .toEqual([expect.stringContaining('script-src-elem blocked inline')]);
});

test('the API reference at /api/docs renders from its own files under the CSP, without signing in', async ({
  page,
}) => {
  const fromConsole = await watchViolations(page);
  await page.goto('/api/docs');
  // Swagger UI draws the document's title and its operations (grouped by tag) from /api/docs/json.
  await expect(page.getByRole('heading', { name: /Gantry API/ })).toBeVisible();
  await expect(page.locator('.opblock-tag').first()).toBeVisible();
  await expectNoViolations(page, '/api/docs');
  expect(fromConsole).toEqual([]);
  await shot(page, 'api-docs');
});
