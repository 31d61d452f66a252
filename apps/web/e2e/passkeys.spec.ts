import { expect, test, type Page } from '@playwright/test';
import { seriousAxeFindings, stillFrame } from './axe';
import { openUserMenu, signIn, signInAsNewUser } from './helpers';
import { addVirtualAuthenticator } from './passkey-helpers';
import { shot } from './shots';

// WebAuthn takes a domain as the relying party, never an IP address: this spec goes through "localhost".
const port = Number(process.env.GANTRY_E2E_PORT ?? 3917);
test.use({ baseURL: `http://localhost:${port}` });

async function openPasskeys(page: Page) {
  await openUserMenu(page);
  await page.getByRole('menuitem', { name: 'Passkeys' }).click();
  return page.getByRole('dialog', { name: 'Passkeys' });
}

async function signOut(page: Page): Promise<void> {
  await openUserMenu(page);
  await page.getByRole('menuitem', { name: 'Sign out' }).click();
  await expect(page.getByRole('heading', { name: 'Sign in to Gantry' })).toBeVisible();
}

test('a passkey is registered, answers the second step, signs in without a password, and is removed with itself', async ({
  page,
}) => {
  await signIn(page);
  const password = 'passkey-pass-1';
  const login = await signInAsNewUser(page, 'pk', 'Paula Passkey', password);
  await addVirtualAuthenticator(page);

  const dialog = await openPasskeys(page);
  await expect(dialog.getByText('You have no passkeys yet.')).toBeVisible();
  await dialog.getByLabel('Name').fill('Work laptop');
  await dialog.getByLabel('Current password').fill(password);
  await dialog.getByRole('button', { name: 'Add a passkey' }).click();
  await expect(page.getByTestId('snackbar')).toHaveText('Passkey added');
  await expect(dialog.getByText('Work laptop')).toBeVisible();
  await expect(dialog.getByText(/Never used/)).toBeVisible();
  expect(await seriousAxeFindings(page)).toEqual([]);
  await shot(page, 'passkeys-desktop');
  await dialog.getByRole('button', { name: 'Close' }).click();
  // On a phone (the user menu is in the menu's drawer): nothing scrolls sideways.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.getByRole('button', { name: 'Open menu' }).click();
  const phone = await openPasskeys(page);
  await expect(phone.getByText('Work laptop')).toBeVisible();
  await stillFrame(page);
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  await shot(page, 'passkeys-phone');
  await phone.getByRole('button', { name: 'Close' }).click();
  await page.setViewportSize({ width: 1280, height: 800 });
  await signOut(page);

  // The password, then the passkey as the second step.
  await page.getByLabel('Username or email').fill(login);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await expect(page.getByRole('heading', { name: 'Two-step verification' })).toBeVisible();
  await page.getByRole('button', { name: 'Use a passkey' }).click();
  await expect(page.getByTestId('user-name')).toHaveText('Paula Passkey');
  await signOut(page);

  // Without a password at all.
  expect(await seriousAxeFindings(page)).toEqual([]);
  await page.setViewportSize({ width: 390, height: 844 });
  await expect(page.getByRole('button', { name: 'Sign in with a passkey' })).toBeVisible();
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  await shot(page, 'passkeys-sign-in-phone');
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
  await expect(page.getByTestId('user-name')).toHaveText('Paula Passkey');

  // Removing it asks for proof; the passkey itself gives it.
  const again = await openPasskeys(page);
  await expect(again.getByText(/Last used/)).toBeVisible();
  await again.getByRole('button', { name: 'Remove' }).click();
  const remove = page.getByRole('dialog', { name: 'Remove passkey Work laptop?' });
  await expect(remove.getByLabel('Current password')).toBeVisible();
  expect(await seriousAxeFindings(page)).toEqual([]);
  await remove.getByRole('button', { name: 'Confirm with a passkey' }).click();
  await expect(remove).toHaveCount(0);
  await expect(again.getByText('You have no passkeys yet.')).toBeVisible();
});

test('a user with only a passkey whose session ended signs in again over the page with it, and keeps what was typed', async ({
  page,
  playwright,
  baseURL,
}) => {
  await page.routeWebSocket(/\/api\/ws/, () => undefined);
  await signIn(page);
  const password = 'passkey-again-1';
  const login = await signInAsNewUser(page, 'pka', 'Petra Again', password);
  await addVirtualAuthenticator(page);
  const passkeys = await openPasskeys(page);
  await passkeys.getByLabel('Current password').fill(password);
  await passkeys.getByRole('button', { name: 'Add a passkey' }).click();
  await expect(page.getByTestId('snackbar')).toHaveText('Passkey added');
  await passkeys.getByRole('button', { name: 'Close' }).click();

  await openUserMenu(page);
  await page.getByRole('menuitem', { name: 'Edit account' }).click();
  const account = page.getByRole('dialog', { name: 'Edit account' });
  const name = account.getByRole('textbox', { name: 'Name', exact: true });
  await name.fill('Petra Renamed');
  // The session ends elsewhere (a sign-out with the same cookie); the save meets it.
  const other = await playwright.request.newContext({ baseURL, storageState: await page.context().storageState() });
  expect((await other.post('/api/auth/logout', { headers: { 'x-gantry-request': '1' } })).status()).toBe(204);
  await other.dispose();
  expect((await page.request.get('/api/user')).status()).toBe(401);
  await account.getByRole('button', { name: 'Save' }).click();

  const again = page.getByRole('dialog', { name: 'Sign in again' });
  await expect(again.getByLabel('Username or email')).toHaveValue(login);
  await again.getByLabel('Password', { exact: true }).fill(password);
  await again.getByRole('button', { name: 'Sign in', exact: true }).click();
  // The second step offers what this user has: the passkey, no code field.
  const step = page.getByRole('dialog', { name: 'Two-step verification' });
  const usePasskey = step.getByRole('button', { name: 'Use a passkey' });
  await expect(usePasskey).toBeVisible();
  await expect(step.getByLabel('Verification code')).toHaveCount(0);
  expect(await seriousAxeFindings(page)).toEqual([]);
  await shot(page, 'session-sign-in-again-passkey');
  await usePasskey.click();
  await expect(step).toBeHidden();
  // The save that met the ended session went through with what was typed.
  await expect(account).toBeHidden();
  await expect(page.getByTestId('user-name')).toHaveText('Petra Renamed');
  expect(((await (await page.request.get('/api/user')).json()) as { name: string }).name).toBe('Petra Renamed');
});
