import { expect, type Locator, type Page } from '@playwright/test';
import { E2E_ADMIN } from '../playwright.config';

export { E2E_ADMIN };

let n = 0;
/** A name unique in this run. */
export function unique(prefix: string): string {
  n += 1;
  return `${prefix} ${Date.now().toString(36)}${n}`;
}

export async function signIn(page: Page, login = E2E_ADMIN.login, password = E2E_ADMIN.password): Promise<void> {
  await page.goto('/auth/login');
  await page.getByLabel('Username or email').fill(login);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await expect(page.getByLabel('User menu')).toBeVisible();
  // The shell shows before '/' has chosen its project: wait for that navigation, which would
  // otherwise close a phone drawer or menu the test opens next.
  await expect(page).toHaveURL(/\/project\//);
}

/** Creates a project through the form and waits for its dashboard. */
export async function createProject(page: Page, name: string): Promise<number> {
  await page.goto('/project/new');
  await page.getByLabel('Project name').fill(name);
  await page.getByRole('button', { name: 'Create', exact: true }).click();
  await expect(page).toHaveURL(/\/project\/\d+\/history$/);
  await expect(page.getByTestId('current-project-name')).toHaveText(name);
  return Number(/\/project\/(\d+)\//.exec(page.url())![1]);
}

export async function openUserMenu(page: Page): Promise<void> {
  await page.getByLabel('User menu').click();
}

/**
 * On a phone the user menu is in the menu's drawer. Right after the viewport turned phone-sized the
 * bar replaces the sidebar as the page re-renders: a click that lands during that render can be
 * lost and the drawer can close again with it, so the drawer and the menu are opened until the
 * menu's "Edit account" shows.
 */
export async function openUserMenuOnPhone(page: Page): Promise<void> {
  const editAccount = page.getByRole('menuitem', { name: 'Edit account' });
  await expect(async () => {
    if (await editAccount.isVisible()) return;
    if (!(await page.getByLabel('User menu').isVisible())) await page.getByRole('button', { name: 'Open menu' }).click();
    await page.getByLabel('User menu').click({ timeout: 3_000 });
    await expect(editAccount).toBeVisible({ timeout: 3_000 });
  }).toPass({ timeout: 20_000 });
}

/**
 * From an admin's session: creates a user through the API, signs out and signs in as that user.
 * Answers the new login.
 */
export async function signInAsNewUser(page: Page, prefix: string, name: string, password: string): Promise<string> {
  const login = `${prefix}${Date.now().toString(36)}`;
  const created = await page.request.post('/api/users', {
    data: { name, username: login, email: `${login}@example.com`, password },
    headers: { 'x-gantry-request': '1' },
  });
  expect(created.status()).toBe(201);
  await openUserMenu(page);
  await page.getByRole('menuitem', { name: 'Sign out' }).click();
  await signIn(page, login, password);
  return login;
}

/** Opens Edit account on its Security tab; answers the dialog. */
export async function openAccountSecurity(page: Page, openMenu: (page: Page) => Promise<void> = openUserMenu) {
  await openMenu(page);
  await page.getByRole('menuitem', { name: 'Edit account' }).click();
  const dialog = page.getByRole('dialog', { name: 'Edit account' });
  await dialog.getByRole('tab', { name: 'Security' }).click();
  return dialog;
}

// Picks an option of a select. While a select's menu is open MUI hides the dialog behind it from
// the accessibility tree, so a click that lands during the menu's transition is retried until the
// menu is really gone instead of leaving every later lookup in the dialog waiting.
export async function choose(page: Page, field: Locator, option: string): Promise<void> {
  await expect(async () => {
    if (!(await page.getByRole('listbox').isVisible())) await field.click({ timeout: 2_000 });
    await page.getByRole('option', { name: option }).click({ timeout: 2_000 });
    await expect(page.getByRole('listbox')).toBeHidden({ timeout: 2_000 });
  }).toPass({ timeout: 20_000 });
}
