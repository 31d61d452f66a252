import { expect, test } from '@playwright/test';
import { seriousAxeFindings } from './axe';
import { E2E_EXTERNAL_USER } from './global-setup';
import { choose, createProject, openUserMenu, signIn, unique } from './helpers';
import { shot } from './shots';

test('an admin adds, edits and deletes a group mapping; a mapped member shows on the team', async ({ page }) => {
  await signIn(page);
  const projectName = unique('Mapped');
  const p = await createProject(page, projectName);

  await openUserMenu(page);
  await page.getByRole('menuitem', { name: 'Identity mappings' }).click();
  await expect(page).toHaveURL(/\/identity-mappings$/);
  await expect(page.getByRole('heading', { level: 1, name: 'Identity mappings' })).toBeVisible();

  // Add: members of an LDAP group get a role in the project.
  const group = `cn=${unique('ops').replace(' ', '-')},ou=groups,dc=example`;
  await page.getByRole('button', { name: 'New mapping' }).click();
  let dialog = page.getByRole('dialog', { name: 'New mapping' });
  await expect(dialog.getByLabel('Source')).toHaveText('LDAP');
  // Nothing granted yet: the form says what a mapping needs, and sends nothing.
  await dialog.getByLabel('Group').fill(group);
  await dialog.getByRole('button', { name: 'Create' }).click();
  await expect(dialog.getByText('A mapping gives the admin flag, a project role, or both')).toBeVisible();
  await choose(page, dialog.getByLabel('Project'), projectName);
  await choose(page, dialog.getByLabel('Role'), 'Task runner');
  // A role in a project is something: the error goes as soon as it is chosen (the same words stay as help).
  await expect(dialog.locator('.Mui-error', { hasText: 'A mapping gives the admin flag, a project role, or both' })).toHaveCount(0);
  expect(await seriousAxeFindings(page, '[role="dialog"]')).toEqual([]);
  await shot(page, 'identity-mapping-dialog');
  await dialog.getByRole('button', { name: 'Create' }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByText(`Mapping for ${group} saved`)).toBeVisible();

  const table = page.getByRole('table', { name: 'Identity mappings' });
  const row = table.getByRole('row').filter({ hasText: group });
  await expect(row).toHaveCount(1);
  await expect(row.getByText(`Task runner in ${projectName}`)).toBeVisible();
  await expect(row.getByRole('cell').first()).toHaveText('LDAP');

  // Edit: the sign-in provider's "gantry-e2e-devs" group, admin flag off, guest in the project.
  await row.getByRole('button', { name: `Edit mapping for ${group}` }).click();
  dialog = page.getByRole('dialog', { name: 'Edit mapping' });
  await choose(page, dialog.getByLabel('Source'), 'Test IdP');
  await dialog.getByLabel('Group').fill('gantry-e2e-devs');
  await choose(page, dialog.getByLabel('Role'), 'Guest');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(dialog).toBeHidden();
  const edited = table.getByRole('row').filter({ hasText: `Guest in ${projectName}` });
  await expect(edited.getByRole('cell').first()).toHaveText('Test IdP');
  await expect(edited.getByRole('cell').nth(1)).toHaveText('gantry-e2e-devs');
  expect(await seriousAxeFindings(page)).toEqual([]);
  await shot(page, 'identity-mappings');

  // At phone width nothing runs off the side.
  await page.setViewportSize({ width: 390, height: 844 });
  await expect(edited).toBeVisible();
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  await shot(page, 'identity-mappings-phone');
  await page.setViewportSize({ width: 1280, height: 800 });

  // The external user signs in through the provider (in another browser context) with that group.
  const other = await page.context().browser()!.newContext();
  const erin = await other.newPage();
  await erin.goto('/auth/login');
  await erin.getByRole('link', { name: 'Sign in with Test IdP' }).click();
  await expect(erin.getByTestId('user-name')).toHaveText(E2E_EXTERNAL_USER.name);
  await other.close();

  await page.goto(`/project/${p}/team`);
  const member = page.getByRole('row').filter({ hasText: E2E_EXTERNAL_USER.preferred_username });
  const marker = member.getByLabel(`Mapped from test: gantry-e2e-devs`);
  await expect(marker).toHaveText('From directory');
  await marker.focus();
  await expect(page.getByRole('tooltip')).toHaveText('Mapped from test: gantry-e2e-devs');
  expect(await seriousAxeFindings(page)).toEqual([]);
  await shot(page, 'team-mapped-member');

  // Delete, with confirmation.
  await page.goto('/identity-mappings');
  await edited.getByRole('button', { name: 'Delete mapping for gantry-e2e-devs' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
  await expect(page.getByText('Mapping for gantry-e2e-devs deleted')).toBeVisible();
  await expect(table.getByRole('row').filter({ hasText: 'gantry-e2e-devs' })).toHaveCount(0);
});

test('a non-admin has no Identity mappings entry and the API refuses them', async ({ page }) => {
  await signIn(page);
  const login = `nomap${Date.now().toString(36)}`;
  const created = await page.request.post('/api/users', {
    data: { name: 'No Mapper', username: login, email: `${login}@example.com`, password: 'nomap-pass-1' },
    headers: { 'x-gantry-request': '1' },
  });
  expect(created.status()).toBe(201);
  await openUserMenu(page);
  await page.getByRole('menuitem', { name: 'Sign out' }).click();
  await signIn(page, login, 'nomap-pass-1');
  await openUserMenu(page);
  await expect(page.getByRole('menuitem', { name: 'Sign out' })).toBeVisible();
  await expect(page.getByRole('menuitem', { name: 'Identity mappings' })).toHaveCount(0);
  await page.keyboard.press('Escape');
  expect((await page.request.get('/api/identity/mappings')).status()).toBe(403);
});
