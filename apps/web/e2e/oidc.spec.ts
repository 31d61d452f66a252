import { expect, test } from '@playwright/test';
import { E2E_EXTERNAL_USER } from './global-setup';
import { openUserMenu } from './helpers';
import { shot } from './shots';

test('the provider button signs in as the external user and lands in the app', async ({ page }) => {
  await page.goto('/auth/login');
  const button = page.getByRole('link', { name: 'Sign in with Test IdP' });
  await expect(button).toBeVisible();
  await expect(button).toHaveAttribute('href', '/api/auth/oidc/test/login');
  await shot(page, 'sign-in-oidc');
  await button.click();
  await expect(page.getByLabel('User menu')).toBeVisible();
  await expect(page.getByTestId('user-name')).toHaveText(E2E_EXTERNAL_USER.name);
  const me = await (await page.request.get('/api/user')).json();
  expect(me).toMatchObject({ username: E2E_EXTERNAL_USER.preferred_username, external: true, admin: false });
  await openUserMenu(page);
  await page.getByRole('menuitem', { name: 'Sign out' }).click();
  await expect(page).toHaveURL(/\/auth\/login$/);
});

test('the button keeps the redirect, and a failed external sign-in shows its error', async ({ page }) => {
  await page.goto('/auth/login?redirect=%2Fusers');
  await expect(page.getByRole('link', { name: 'Sign in with Test IdP' })).toHaveAttribute('href', '/api/auth/oidc/test/login?redirect=%2Fusers');
  // The callback without the flow started here: back to sign-in with the reason.
  await page.goto('/api/auth/oidc/test/redirect?code=x&state=y');
  await expect(page).toHaveURL(/\/auth\/login\?error=/);
  await expect(page.getByRole('alert')).toContainText('The sign-in expired or was started in another browser');
});
