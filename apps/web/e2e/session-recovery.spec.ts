import { expect, test, type APIRequestContext, type Page, type PlaywrightWorkerArgs } from '@playwright/test';
import { seriousAxeFindings } from './axe';
import { E2E_EXTERNAL_USER } from './global-setup';
import { E2E_ADMIN, createProject, openUserMenu, signIn, signInAsNewUser, unique } from './helpers';
import { shot } from './shots';

const CSRF = { 'x-gantry-request': '1' };
type Playwright = PlaywrightWorkerArgs['playwright'];

/** Ends the page's session from another client holding the same cookie (as a sign-out elsewhere does). */
async function endSessionElsewhere(page: Page, playwright: Playwright): Promise<void> {
  const other = await playwright.request.newContext({ baseURL: test.info().project.use.baseURL, storageState: await page.context().storageState() });
  expect((await other.post('/api/auth/logout', { headers: CSRF })).status()).toBe(204);
  await other.dispose();
  expect((await page.request.get('/api/user')).status()).toBe(401);
}

/** An admin's API client of its own (its own session). */
async function adminClient(playwright: Playwright): Promise<APIRequestContext> {
  const admin = await playwright.request.newContext({ baseURL: test.info().project.use.baseURL });
  expect((await admin.post('/api/auth/login', { data: { auth: E2E_ADMIN.login, password: E2E_ADMIN.password }, headers: CSRF })).status()).toBe(204);
  return admin;
}

/** Marks the current document: the mark is gone once the page has reloaded. */
async function markDocument(page: Page): Promise<void> {
  await page.evaluate(() => {
    (window as unknown as { __beforeReload?: boolean }).__beforeReload = true;
  });
}
const documentMarked = (page: Page) => page.evaluate(() => (window as unknown as { __beforeReload?: boolean }).__beforeReload === true);

test.describe('an ended session is signed in again over the page', () => {
  test('a save meets the ended session: sign in over the form, and the save goes through with what was typed', async ({ page, playwright }) => {
    // The socket would report the ended session by itself; here the save is the first to hear it.
    await page.routeWebSocket(/\/api\/ws/, () => undefined);
    await signIn(page);
    const id = await createProject(page, unique('Recovery'));
    await page.getByRole('tab', { name: 'Settings' }).click();
    const renamed = unique('Kept while signed out');
    await page.getByLabel('Project name').fill(renamed);
    await page.getByLabel('Max parallel tasks').fill('4');

    await endSessionElsewhere(page, playwright);
    await page.getByRole('button', { name: 'Save' }).click();

    const dialog = page.getByRole('dialog', { name: 'Sign in again' });
    await expect(dialog).toBeVisible();
    await expect(dialog).toContainText('Your session has ended');
    await expect(dialog.getByLabel('Username or email')).toHaveValue(E2E_ADMIN.login);
    await expect(dialog.getByLabel('Password', { exact: true })).toBeFocused();
    // The provider's button is there too, with what it means for the typed work.
    await expect(dialog.getByRole('link', { name: 'Sign in with Test IdP' })).toBeVisible();
    await expect(dialog).toContainText('opens a new window');
    expect(await seriousAxeFindings(page)).toEqual([]);
    await shot(page, 'session-sign-in-again');
    await page.setViewportSize({ width: 390, height: 844 });
    await expect.poll(() => page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await shot(page, 'session-sign-in-again-390');
    await page.setViewportSize({ width: 1366, height: 860 });

    // A wrong password is refused in the dialog; the page stays.
    await dialog.getByLabel('Password', { exact: true }).fill('not-the-password');
    await dialog.getByRole('button', { name: 'Sign in', exact: true }).click();
    await expect(dialog.getByRole('alert')).toBeVisible();
    await expect(page).toHaveURL(new RegExp(`/project/${id}/settings$`));

    await dialog.getByLabel('Password', { exact: true }).fill(E2E_ADMIN.password);
    await dialog.getByRole('button', { name: 'Sign in', exact: true }).click();
    await expect(dialog).toBeHidden();
    // The save that met the 401 was sent again: saved, with what was typed before.
    await expect(page.getByTestId('snackbar')).toHaveText(`Project ${renamed} saved`);
    await expect(page).toHaveURL(new RegExp(`/project/${id}/settings$`));
    await expect(page.getByLabel('Project name')).toHaveValue(renamed);
    const project = (await (await page.request.get(`/api/project/${id}`)).json()) as { name: string; max_parallel_tasks: number };
    expect(project).toMatchObject({ name: renamed, max_parallel_tasks: 4 });
  });

  test('with two-factor sign-in, the dialog asks for the code (here a recovery code) before the save goes through', async ({ page, playwright }) => {
    await page.routeWebSocket(/\/api\/ws/, () => undefined);
    await signIn(page);
    const password = 'recover-pass-1';
    const login = await signInAsNewUser(page, 'rec', 'Rita Recover', password);
    const me = (await (await page.request.get('/api/user')).json()) as { id: number };
    const admin = await adminClient(playwright);
    const enabled = await admin.post(`/api/users/${me.id}/2fas/totp`, { headers: CSRF });
    expect(enabled.status()).toBe(201);
    const { recovery_code: recoveryCode } = (await enabled.json()) as { recovery_code: string };
    await admin.dispose();

    await openUserMenu(page);
    await page.getByRole('menuitem', { name: 'Edit account' }).click();
    const account = page.getByRole('dialog', { name: 'Edit account' });
    const name = account.getByRole('textbox', { name: 'Name', exact: true });
    await expect(name).toHaveValue('Rita Recover');
    await name.fill('Rita Renamed');
    await endSessionElsewhere(page, playwright);
    await account.getByRole('button', { name: 'Save' }).click();

    // Over the account dialog: the password, then the code step.
    const dialog = page.getByRole('dialog', { name: 'Sign in again' });
    await expect(dialog.getByLabel('Username or email')).toHaveValue(login);
    await dialog.getByLabel('Password', { exact: true }).fill(password);
    await dialog.getByRole('button', { name: 'Sign in', exact: true }).click();
    const code = page.getByRole('dialog', { name: 'Two-step verification' });
    await expect(code.getByLabel('Verification code')).toBeVisible();
    await shot(page, 'session-sign-in-again-code');
    await code.getByRole('button', { name: 'Use a recovery code' }).click();
    const recovery = page.getByRole('dialog', { name: 'Recovery' });
    await recovery.getByLabel('Recovery code').fill(recoveryCode);
    await recovery.getByRole('button', { name: 'Send' }).click();
    await expect(recovery).toBeHidden();

    await expect(account).toBeHidden();
    expect(((await (await page.request.get('/api/user')).json()) as { name: string }).name).toBe('Rita Renamed');
    await expect(page.getByTestId('user-name')).toHaveText('Rita Renamed');
  });

  test('signing in again with a provider happens in a new window, and the page keeps what was typed', async ({ page, playwright }) => {
    await page.routeWebSocket(/\/api\/ws/, () => undefined);
    await page.goto('/auth/login');
    await page.getByRole('link', { name: 'Sign in with Test IdP' }).click();
    await expect(page.getByTestId('user-name')).toHaveText(E2E_EXTERNAL_USER.name);
    await openUserMenu(page);
    await page.getByRole('menuitem', { name: 'Edit account' }).click();
    const account = page.getByRole('dialog', { name: 'Edit account' });
    const renamed = unique('Erin');
    const name = account.getByRole('textbox', { name: 'Name', exact: true });
    await expect(name).toHaveValue(E2E_EXTERNAL_USER.name);
    await name.fill(renamed);
    await endSessionElsewhere(page, playwright);
    await account.getByRole('button', { name: 'Save' }).click();

    const dialog = page.getByRole('dialog', { name: 'Sign in again' });
    const popup = page.waitForEvent('popup');
    await dialog.getByRole('link', { name: 'Sign in with Test IdP' }).click();
    // The provider's window signs in and is closed; the page goes on with the save.
    const win = await popup;
    await expect(dialog).toBeHidden();
    await expect(account).toBeHidden();
    await expect.poll(() => win.isClosed()).toBe(true);
    expect(((await (await page.request.get('/api/user')).json()) as { name: string }).name).toBe(renamed);
    await expect(page.getByTestId('user-name')).toHaveText(renamed);
    // The name goes back, for the other tests that sign in as this user.
    const me = (await (await page.request.get('/api/user')).json()) as Record<string, unknown>;
    expect((await page.request.put(`/api/users/${me.id as number}`, { data: { ...me, name: E2E_EXTERNAL_USER.name }, headers: CSRF })).status()).toBe(204);
  });

  test('a session revoked on the socket shows the dialog; signing in again reconnects the socket', async ({ page, playwright }) => {
    await signIn(page);
    const id = await createProject(page, unique('Socket'));
    await markDocument(page);
    const socket = page.waitForEvent('websocket', (ws) => ws.url().includes('/api/ws'));
    await endSessionElsewhere(page, playwright);
    // Nothing is clicked: the socket's close (4401) is what tells the page.
    const dialog = page.getByRole('dialog', { name: 'Sign in again' });
    await expect(dialog).toBeVisible();
    await dialog.getByLabel('Password', { exact: true }).fill(E2E_ADMIN.password);
    await dialog.getByRole('button', { name: 'Sign in', exact: true }).click();
    await expect(dialog).toBeHidden();
    await socket;
    expect(await documentMarked(page)).toBe(true);
    await expect(page).toHaveURL(new RegExp(`/project/${id}/history$`));
  });

  test('someone else signing in in the dialog starts over on the start page, as them', async ({ page, playwright }) => {
    await signIn(page);
    const other = { login: `other${Date.now().toString(36)}`, password: 'other-pass-1', name: 'Otto Other' };
    const created = await page.request.post('/api/users', {
      data: { name: other.name, username: other.login, email: `${other.login}@example.com`, password: other.password },
      headers: CSRF,
    });
    expect(created.status()).toBe(201);
    const id = await createProject(page, unique('Not for Otto'));
    await page.getByRole('tab', { name: 'Settings' }).click();
    await markDocument(page);

    await endSessionElsewhere(page, playwright);
    const dialog = page.getByRole('dialog', { name: 'Sign in again' });
    await expect(dialog).toBeVisible();
    await dialog.getByLabel('Username or email').fill(other.login);
    await dialog.getByLabel('Password', { exact: true }).fill(other.password);
    await dialog.getByRole('button', { name: 'Sign in', exact: true }).click();
    await expect(page.getByTestId('user-name')).toHaveText(other.name);
    await expect(page).not.toHaveURL(new RegExp(`/project/${id}/`));
    expect(await documentMarked(page)).toBe(false);
  });
});

test.describe('server gone, server back', () => {
  test('calls that cannot reach the server show the offline banner until it answers again', async ({ page }) => {
    await signIn(page);
    const id = await createProject(page, unique('Offline'));
    await page.route('**/api/**', (route) => route.abort('internetdisconnected'));
    await page.getByRole('link', { name: 'Keys', exact: true }).click();
    const banner = page.getByRole('status').filter({ hasText: 'Cannot reach the server' });
    await expect(banner).toBeVisible();
    await expect(banner.getByRole('button', { name: 'Try now' })).toBeVisible();
    expect(await seriousAxeFindings(page, '[data-testid="offline-banner"]')).toEqual([]);
    await shot(page, 'offline-banner');
    await page.setViewportSize({ width: 390, height: 844 });
    await expect.poll(() => page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await shot(page, 'offline-banner-390');
    await page.setViewportSize({ width: 1366, height: 860 });

    await page.unroute('**/api/**');
    await expect(banner).toBeHidden({ timeout: 20_000 });
    // What failed meanwhile is read again: the page shows its list, not the error.
    await expect(page).toHaveURL(new RegExp(`/project/${id}/keys$`));
    await expect(page.getByRole('button', { name: 'New key' })).toBeVisible();
  });

  test('a screen whose code is gone from the server reloads the page on the same address', async ({ page }) => {
    await signIn(page);
    const id = await createProject(page, unique('Chunks'));
    await markDocument(page);
    // The next chunk asked for is missing, as after an upgrade replaced the build.
    let missing = 0;
    await page.route(/\/assets\/.*\.js$/, async (route) => {
      if (missing++ === 0) await route.fulfill({ status: 404, body: 'gone' });
      else await route.continue();
    });
    await page.getByRole('link', { name: 'Keys', exact: true }).click();
    await expect.poll(() => documentMarked(page).catch(() => true)).toBe(false);
    expect(missing).toBeGreaterThan(0);
    await expect(page).toHaveURL(new RegExp(`/project/${id}/keys$`));
    await expect(page.getByRole('button', { name: 'New key' })).toBeVisible();
    await expect(page.getByText('Something went wrong')).toHaveCount(0);
  });

  test('a server back with another version reloads the page into it on the same address', async ({ page }) => {
    await signIn(page);
    const id = await createProject(page, unique('Upgrade'));
    await page.getByRole('tab', { name: 'Settings' }).click();
    await markDocument(page);
    // The server goes away and comes back upgraded.
    await page.route('**/api/info', async (route) => {
      const answer = await route.fetch();
      await route.fulfill({ response: answer, json: { ...((await answer.json()) as object), version: '99.0.0-abcdef0' } });
    });
    await page.route('**/api/**', (route) => route.abort('internetdisconnected'));
    await page.getByRole('tab', { name: 'Activity' }).click();
    await expect(page.getByRole('status').filter({ hasText: 'Cannot reach the server' })).toBeVisible();
    await page.unroute('**/api/**');
    await expect.poll(() => documentMarked(page).catch(() => true), { timeout: 20_000 }).toBe(false);
    await expect(page).toHaveURL(new RegExp(`/project/${id}/activity$`));
    await expect(page.getByTestId('current-project-name')).toBeVisible();
  });
});
