import { expect, test, type Page } from '@playwright/test';
import { openAccountSecurity, openUserMenu, signIn, signInAsNewUser } from './helpers';
import { shot } from './shots';
import { codeFor, enrolTotp } from './totp-helpers';

/** The password step only: the app then asks for the code. */
async function signInWithPassword(page: Page, login: string, password: string): Promise<void> {
  await page.goto('/auth/login');
  await page.getByLabel('Username or email').fill(login);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await expect(page.getByRole('heading', { name: 'Two-step verification' })).toBeVisible();
}

test('a user enables two-factor sign-in; then a wrong code is refused and the recovery code signs in', async ({
  page,
}) => {
  // A new user, made by the admin.
  await signIn(page);
  const password = 'totp-pass-1';
  const login = await signInAsNewUser(page, 'totp', 'Tess Totp', password);

  // Their account, Security tab: enable (with their password: a session alone is not enough),
  // see the QR code, confirm a code from it, then the recovery code: copy it.
  const dialog = await openAccountSecurity(page);
  await expect(dialog.getByText('Off. When on, signing in asks for a code')).toBeVisible();
  await dialog.getByRole('button', { name: 'Enable two-factor sign-in' }).click();
  const confirm = page.getByRole('dialog', { name: 'Enable two-factor sign-in' });
  await expect(confirm).toContainText('confirm it is you: enter your current password');
  await confirm.getByRole('button', { name: 'Continue' }).click();
  await expect(confirm.getByText('Enter your password')).toBeVisible();
  await confirm.getByLabel('Current password').fill('not-my-password');
  await confirm.getByRole('button', { name: 'Continue' }).click();
  await expect(confirm.getByText('Current password is incorrect')).toBeVisible();
  await shot(page, 'totp-enable');
  expect(((await (await page.request.get('/api/user')).json()) as { totp: unknown }).totp).toBeNull();
  await confirm.getByLabel('Current password').fill(password);
  await confirm.getByRole('button', { name: 'Continue' }).click();
  const qr = confirm.getByRole('img', { name: 'QR code for your authenticator app' });
  await expect(qr).toBeVisible();
  await expect
    .poll(() => qr.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth))
    .toBeGreaterThan(100);
  await confirm.getByLabel('Verification code').fill(codeFor((await confirm.getByTestId('totp-secret').textContent())!));
  await confirm.getByRole('button', { name: 'Enable', exact: true }).click();
  await expect(confirm).toHaveCount(0);
  const code = (await dialog.getByTestId('recovery-code').textContent())!;
  expect(code).toMatch(/^[a-z0-9]{16}$/);
  await shot(page, 'security-tab');
  await dialog.getByRole('button', { name: 'Copy the recovery code' }).click();
  await expect(page.getByTestId('snackbar')).toHaveText('The recovery code has been copied to your clipboard.');
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(code);
  await dialog.getByRole('button', { name: 'Close' }).click();
  await openUserMenu(page);
  await page.getByRole('menuitem', { name: 'Sign out' }).click();

  // The password alone now leads to the code step; a wrong code is refused.
  await signInWithPassword(page, login, password);
  await expect(page.getByRole('button', { name: 'Use a recovery code' })).toBeVisible();
  await shot(page, 'verification');
  await page.getByLabel('Verification code').pressSequentially('000000');
  await expect(page.getByRole('alert')).toHaveText('Incorrect verification code.');
  await expect(page).toHaveURL(/\/auth\/login$/);

  // Opening the app meanwhile comes back to the code step (start-up check), keeping the query string.
  await page.goto('/tokens?t=5');
  await expect(page).toHaveURL(/\/auth\/login\?t=5$/);
  await expect(page.getByRole('heading', { name: 'Two-step verification' })).toBeVisible();

  // Back to the password form ends the waiting session.
  await page.getByRole('button', { name: 'Back to sign in' }).click();
  await expect(page.getByRole('button', { name: 'Sign in', exact: true })).toBeVisible();
  expect((await page.request.get('/api/user')).status()).toBe(401);

  // Signing in again from there keeps the query string too. The recovery code: a wrong one is
  // refused, the right one signs in and turns two-factor off.
  await expect(page).toHaveURL(/\/auth\/login\?t=5$/);
  await page.getByLabel('Username or email').fill(login);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.getByRole('button', { name: 'Use a recovery code' }).click();
  await expect(page.getByRole('heading', { name: 'Recovery' })).toBeVisible();
  await page.getByRole('button', { name: 'Send' }).click();
  await expect(page.getByText('Recovery code is required')).toBeVisible();
  await page.getByLabel('Recovery code').fill('not-the-code');
  await page.getByRole('button', { name: 'Send' }).click();
  await expect(page.getByRole('alert')).toHaveText('Incorrect recovery code.');
  await shot(page, 'recovery');
  await page.getByLabel('Recovery code').fill(code);
  await page.getByRole('button', { name: 'Send' }).click();
  await expect(page.getByLabel('User menu')).toBeVisible();
  await expect(page.getByTestId('user-name')).toHaveText('Tess Totp');
  expect(new URL(page.url()).search).toBe('?t=5');

  await openUserMenu(page);
  await page.getByRole('menuitem', { name: 'Edit account' }).click();
  await dialog.getByRole('tab', { name: 'Security' }).click();
  await expect(dialog.getByRole('button', { name: 'Enable two-factor sign-in' })).toBeVisible();
});

test('an admin sees the Security tab of another user but never their QR code, and can disable it', async ({ page }) => {
  await signIn(page);
  const login = `totpadm${Date.now().toString(36)}`;
  const user = await page.request.post('/api/users', {
    data: { name: 'Otto Other', username: login, email: `${login}@example.com`, password: 'p' },
    headers: { 'x-gantry-request': '1' },
  });
  const id = (await user.json()).id as number;
  await page.goto('/users');
  await page.getByRole('button', { name: `Edit ${login}` }).click();
  const dialog = page.getByRole('dialog');
  await dialog.getByRole('tab', { name: 'Security' }).click();
  await dialog.getByRole('button', { name: 'Enable two-factor sign-in' }).click();
  await expect(dialog.getByTestId('recovery-code')).toBeVisible();
  await expect(dialog.getByRole('img')).toHaveCount(0);
  await expect(dialog).toContainText('Otto Other signs in next with this recovery code');
  const totpId = ((await (await page.request.get(`/api/users/${id}`)).json()) as { totp: { id: number } }).totp.id;
  expect((await page.request.get(`/api/users/${id}/2fas/totp/${totpId}/qr`)).status()).toBe(403);
  await dialog.getByRole('button', { name: 'Close' }).click();

  await page.getByRole('button', { name: `Edit ${login}` }).click();
  await dialog.getByRole('tab', { name: 'Security' }).click();
  await expect(dialog.getByText('On. Signing in asks for a code')).toBeVisible();
  await dialog.getByRole('button', { name: 'Disable two-factor sign-in' }).click();
  await expect(dialog.getByRole('button', { name: 'Enable two-factor sign-in' })).toBeVisible();
});

test('turning off your own two-factor sign-in asks for your password or a code', async ({ page }) => {
  await signIn(page);
  const password = 'totp-off-pass';
  await signInAsNewUser(page, 'totpoff', 'Olga Off', password);
  const account = await openAccountSecurity(page);
  await enrolTotp(page, account, password);
  await expect(account.getByTestId('recovery-code')).toBeVisible();
  await account.getByRole('button', { name: 'Close' }).click();

  await openUserMenu(page);
  await page.getByRole('menuitem', { name: 'Edit account' }).click();
  await account.getByRole('tab', { name: 'Security' }).click();
  await account.getByRole('button', { name: 'Disable two-factor sign-in' }).click();
  const confirm = page.getByRole('dialog', { name: 'Disable two-factor sign-in' });
  await expect(confirm.getByRole('radio', { name: 'Password' })).toBeChecked();
  await expect(confirm.getByRole('radio', { name: 'Authenticator code' })).toBeVisible();
  await confirm.getByRole('button', { name: 'Disable' }).click();
  await expect(confirm.getByText('Enter your password or a code')).toBeVisible();
  await confirm.getByLabel('Current password').fill('not-my-password');
  await confirm.getByRole('button', { name: 'Disable' }).click();
  await expect(confirm.getByRole('alert')).toHaveText('Current password is incorrect');
  await shot(page, 'totp-disable');
  // Still on, still signed in.
  expect(((await (await page.request.get('/api/user')).json()) as { totp: unknown }).totp).not.toBeNull();

  await confirm.getByRole('radio', { name: 'Authenticator code' }).check();
  await expect(confirm.getByLabel('Verification code')).toBeVisible();
  await confirm.getByRole('radio', { name: 'Password' }).check();
  await confirm.getByLabel('Current password').fill(password);
  await confirm.getByRole('button', { name: 'Disable' }).click();
  await expect(confirm).toHaveCount(0);
  await expect(account.getByRole('button', { name: 'Enable two-factor sign-in' })).toBeVisible();
});
