import { expect, test } from '@playwright/test';
import { openUserMenu, signIn, unique } from './helpers';
import { shot } from './shots';

test('an admin creates a user, edits them, and the user signs in and changes their password', async ({ page, browser }) => {
  await signIn(page);
  await page.goto('/users');
  await page.getByRole('button', { name: 'New user' }).click();
  const dialog = page.getByRole('dialog');
  await dialog.getByRole('button', { name: 'Create' }).click();
  await expect(dialog.getByText('Name is required', { exact: true })).toBeVisible();
  const login = `u${Date.now().toString(36)}`;
  await dialog.getByRole('textbox', { name: 'Name', exact: true }).fill('Grace Hopper');
  await dialog.getByRole('textbox', { name: 'Username', exact: true }).fill(login);
  await dialog.getByRole('textbox', { name: 'Email', exact: true }).fill(`${login}@example.com`);
  await dialog.getByRole('button', { name: 'Create' }).click();
  await expect(dialog.getByText('Password is required')).toBeVisible();
  await dialog.getByRole('textbox', { name: 'Password', exact: true }).fill('first-pass');
  await dialog.getByRole('button', { name: 'Create' }).click();
  await expect(page.getByTestId('snackbar')).toHaveText('User Grace Hopper created');
  const row = page.getByRole('row', { name: new RegExp(login) });
  await expect(row).toContainText(`${login}@example.com`);
  await shot(page, 'users');

  // A duplicate username is refused by the server, shown atop the form.
  await page.getByRole('button', { name: 'New user' }).click();
  await dialog.getByRole('textbox', { name: 'Name', exact: true }).fill('Dup');
  await dialog.getByRole('textbox', { name: 'Username', exact: true }).fill(login);
  await dialog.getByRole('textbox', { name: 'Email', exact: true }).fill(`dup-${login}@example.com`);
  await dialog.getByRole('textbox', { name: 'Password', exact: true }).fill('x');
  await dialog.getByRole('button', { name: 'Create' }).click();
  await expect(dialog.getByRole('alert')).toHaveText('Username is already taken');
  await dialog.getByRole('button', { name: 'Cancel' }).click();

  await page.getByRole('button', { name: `Edit ${login}` }).click();
  await expect(dialog.getByRole('textbox', { name: 'Name', exact: true })).toHaveValue('Grace Hopper');
  await dialog.getByRole('textbox', { name: 'Name', exact: true }).fill('Grace B. Hopper');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByTestId('snackbar')).toHaveText('User Grace B. Hopper saved');
  await expect(row).toContainText('Grace B. Hopper');

  await openUserMenu(page);
  await page.getByRole('menuitem', { name: 'Sign out' }).click();
  await signIn(page, login, 'first-pass');
  await expect(page).toHaveURL(/\/project\/new$/);
  await expect(page.getByTestId('user-name')).toHaveText('Grace B. Hopper');

  // The same user in another browser: signed out by the password change below.
  const elsewhere = await browser.newContext();
  const other = await elsewhere.newPage();
  await signIn(other, login, 'first-pass');

  await openUserMenu(page);
  await expect(page.getByRole('menuitem', { name: 'Users' })).toHaveCount(0);
  await page.getByRole('menuitem', { name: 'Change password' }).click();
  await dialog.getByLabel('Current password').fill('wrong');
  await dialog.getByLabel('New password').fill('second-pass');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(dialog.getByRole('alert')).toHaveText('Current password is incorrect');
  await dialog.getByLabel('Current password').fill('first-pass');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByTestId('snackbar')).toHaveText('Password changed');
  // This browser goes on with a new session; the other one is out.
  await page.goto('/tokens');
  await expect(page.getByRole('heading', { name: 'API tokens' })).toBeVisible();
  expect((await other.request.get('/api/user')).status()).toBe(401);
  await other.goto('/tokens');
  await expect(other).toHaveURL(/\/auth\/login/);
  await elsewhere.close();
  await openUserMenu(page);
  await page.getByRole('menuitem', { name: 'Sign out' }).click();
  await signIn(page, login, 'second-pass');
});

test('an admin deletes a user after confirming', async ({ page }) => {
  await signIn(page);
  const login = `del${Date.now().toString(36)}`;
  const res = await page.request.post('/api/users', {
    data: { name: unique('Temp'), username: login, email: `${login}@example.com`, password: 'p' },
    headers: { 'x-gantry-request': '1' },
  });
  expect(res.status()).toBe(201);
  await page.goto('/users');
  // The list shows 20 users a page: other specs' users may come before this one.
  const remove = page.getByRole('button', { name: `Delete ${login}` });
  await expect(page.getByRole('button', { name: /^Delete / }).first()).toBeVisible();
  for (let i = 0; i < 10 && !(await remove.isVisible()); i++) {
    await page.getByRole('button', { name: 'Go to next page' }).click();
  }
  await remove.click();
  await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
  await expect(page.getByTestId('snackbar')).toContainText('deleted');
  await expect(page.getByRole('row', { name: new RegExp(login) })).toHaveCount(0);
});
