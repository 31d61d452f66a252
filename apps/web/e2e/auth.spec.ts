import { expect, test } from '@playwright/test';
import { E2E_ADMIN, openUserMenu, signIn } from './helpers';
import { shot } from './shots';

test('a wrong password shows the error, the right one signs in; sign out returns to sign-in', async ({ page }) => {
  await page.goto('/');
  await expect(page).toHaveURL(/\/auth\/login/);
  await shot(page, 'sign-in');
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await expect(page.getByText('Username is required')).toBeVisible();
  await page.getByLabel('Username or email').fill(E2E_ADMIN.login);
  await page.getByLabel('Password', { exact: true }).fill('wrong-password');
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await expect(page.getByRole('alert')).toHaveText('Incorrect login or password');

  await signIn(page);
  await expect(page.getByTestId('user-name')).toHaveText(E2E_ADMIN.name);
  await openUserMenu(page);
  await expect(page.getByTestId('app-version')).toHaveText(/^Version \d+\.\d+\.\d+$/);
  await page.getByRole('menuitem', { name: 'Sign out' }).click();
  await expect(page).toHaveURL(/\/auth\/login$/);
  // The session ended on the server too.
  expect((await page.request.get('/api/user')).status()).toBe(401);
});

test('an app URL while signed out goes to sign-in keeping the query string, and the help explains the CLI', async ({ page }) => {
  await page.goto('/users?t=42');
  await expect(page).toHaveURL(/\/auth\/login\?t=42$/);
  await page.getByRole('button', { name: 'Trouble signing in?' }).click();
  await expect(page.getByRole('dialog')).toContainText('gantry user change-by-login --login <login> --password <password>');
  await expect(page.getByRole('dialog')).toContainText('gantry user list');
  await page.getByRole('button', { name: 'Close' }).click();
  await page.getByLabel('Username or email').fill(E2E_ADMIN.login);
  await page.getByLabel('Password', { exact: true }).fill(E2E_ADMIN.password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await expect(page.getByLabel('User menu')).toBeVisible();
  expect(new URL(page.url()).search).toBe('?t=42');
});

test('a failing start-up shows the error view with refresh and re-login', async ({ page }) => {
  await signIn(page);
  await page.route('**/api/info', (route) => route.fulfill({ status: 500, contentType: 'application/json', body: '{"error":"Internal server error"}' }));
  await page.reload();
  await expect(page.getByRole('heading', { name: 'Something went wrong' })).toBeVisible();
  // What happened and what to do, not a bare "Internal server error".
  await expect(page.getByText('The server had a problem and could not finish the request (error 500).', { exact: false })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Refresh page' })).toBeVisible();
  await page.unroute('**/api/info');
  await page.getByRole('button', { name: 'Sign in again' }).click();
  await expect(page).toHaveURL(/\/auth\/login$/);
});

test('below 960 px the sidebar becomes a drawer opened from the top bar', async ({ page }) => {
  await page.setViewportSize({ width: 800, height: 900 });
  await page.goto('/auth/login');
  await page.getByLabel('Username or email').fill(E2E_ADMIN.login);
  await page.getByLabel('Password', { exact: true }).fill(E2E_ADMIN.password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await expect(page.getByRole('button', { name: 'Open menu' })).toBeVisible();
  await expect(page.getByTestId('project-switcher')).toBeHidden();
  await page.getByRole('button', { name: 'Open menu' }).click();
  await expect(page.getByTestId('project-switcher')).toBeVisible();
  await shot(page, 'mobile-drawer');
});
