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
