import { expect, test, type Page } from '@playwright/test';
import { openAccountSecurity, openUserMenu, openUserMenuOnPhone, signIn, signInAsNewUser } from './helpers';
import { codeFor, wrongCodeFor } from './totp-helpers';

const user = async (page: Page) =>
  (await (await page.request.get('/api/user')).json()) as { totp: { id: number } | null };

test('two-factor sign-in goes on only after a code from the shown setup key, and then sign-in asks for one', async ({ page }) => {
  await signIn(page);
  const password = 'enrol-pass-1';
  const login = await signInAsNewUser(page, 'enrol', 'Erin Enrol', password);
  const account = await openAccountSecurity(page);
  await account.getByRole('button', { name: 'Enable two-factor sign-in' }).click();
  const enable = page.getByRole('dialog', { name: 'Enable two-factor sign-in' });
  await enable.getByLabel('Current password').fill(password);
  await enable.getByRole('button', { name: 'Continue' }).click();

  // The QR code and the key as text, in groups of four, with a copy button.
  const qr = enable.getByRole('img', { name: 'QR code for your authenticator app' });
  await expect(qr).toBeVisible();
  await expect.poll(() => qr.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBeGreaterThan(100);
  const key = enable.getByTestId('totp-secret');
  await expect(key).toHaveText(/^([A-Z2-7]{4} )+[A-Z2-7]{1,4}$/);
  const shown = (await key.textContent())!;
  await enable.getByRole('button', { name: 'Copy the setup key' }).click();
  await expect(page.getByTestId('snackbar')).toHaveText('The setup key has been copied to your clipboard.');
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(shown.replace(/\s+/g, ''));
  await page.screenshot({ path: '/tmp/forms/totp-enrol-desktop.png' });

  // Not on yet; no code, then a wrong one, are refused at the field.
  expect((await user(page)).totp).toBeNull();
  await enable.getByRole('button', { name: 'Enable', exact: true }).click();
  await expect(enable.getByText('Enter the code from the app')).toBeVisible();
  await enable.getByLabel('Verification code').fill(wrongCodeFor(shown));
  await enable.getByRole('button', { name: 'Enable', exact: true }).click();
  await expect(enable.getByText('Incorrect code: enter the code your authenticator app shows now.')).toBeVisible();
  expect((await user(page)).totp).toBeNull();

  // The right code (typed from the keyboard) turns it on; the recovery code is shown once.
  await enable.getByLabel('Verification code').fill(codeFor(shown));
  await enable.getByLabel('Verification code').press('Enter');
  await expect(enable).toHaveCount(0);
  await expect(account.getByText('Two-factor sign-in is on.')).toBeVisible();
  await expect(account.getByTestId('recovery-code')).toHaveText(/^[a-z0-9]{16}$/);
  expect((await user(page)).totp).not.toBeNull();
  await account.getByRole('button', { name: 'Close' }).click();
  await openUserMenu(page);
  await page.getByRole('menuitem', { name: 'Sign out' }).click();

  // Sign-in now asks for a code, and one from the same key lets the user in.
  await page.getByLabel('Username or email').fill(login);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await expect(page.getByRole('heading', { name: 'Two-step verification' })).toBeVisible();
  await page.getByLabel('Verification code').pressSequentially(codeFor(shown, 1));
  await expect(page.getByTestId('user-name')).toHaveText('Erin Enrol');
});

test('a setup left without a code does not ask for one at sign-in, and can be started again', async ({ page }) => {
  await signIn(page);
  const password = 'enrol-pass-2';
  const login = await signInAsNewUser(page, 'enrolx', 'Ezra Left', password);
  // On a phone: the account is in the menu's drawer.
  await page.setViewportSize({ width: 390, height: 844 });
  const account = await openAccountSecurity(page, openUserMenuOnPhone);
  await account.getByRole('button', { name: 'Enable two-factor sign-in' }).click();
  const enable = page.getByRole('dialog', { name: 'Enable two-factor sign-in' });
  await enable.getByLabel('Current password').fill(password);
  await enable.getByRole('button', { name: 'Continue' }).click();
  const first = (await enable.getByTestId('totp-secret').textContent())!;
  const qr = enable.getByRole('img', { name: 'QR code for your authenticator app' });
  await expect(qr).toBeInViewport();
  await expect.poll(() => qr.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBeGreaterThan(100);
  await page.screenshot({ path: '/tmp/forms/totp-enrol-phone.png' });
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  await enable.getByRole('button', { name: 'Cancel' }).click();
  await expect(account.getByText('Off. When on, signing in asks for a code')).toBeVisible();
  await account.getByRole('button', { name: 'Close' }).click();
  await page.setViewportSize({ width: 1280, height: 800 });
  await openUserMenu(page);
  await page.getByRole('menuitem', { name: 'Sign out' }).click();

  // The password alone signs in: nothing was turned on.
  await signIn(page, login, password);
  const again = await openAccountSecurity(page);
  await again.getByRole('button', { name: 'Enable two-factor sign-in' }).click();
  await enable.getByLabel('Current password').fill(password);
  await enable.getByRole('button', { name: 'Continue' }).click();
  await expect(enable.getByTestId('totp-secret')).not.toHaveText(first);
});
