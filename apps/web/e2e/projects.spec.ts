import { expect, test } from '@playwright/test';
import { createProject, openUserMenu, signIn, unique } from './helpers';
import { shot } from './shots';

test.beforeEach(async ({ page }) => signIn(page));

test('create a project, see it in the switcher with its role, and get validation errors first', async ({ page }) => {
  await page.goto('/project/new');
  await page.getByRole('button', { name: 'Create', exact: true }).click();
  await expect(page.getByText('Project name is required')).toBeVisible();
  const name = unique('Web servers');
  await page.getByLabel('Project name').fill(name);
  await page.getByLabel('Max parallel tasks').fill('-1');
  await page.getByRole('button', { name: 'Create', exact: true }).click();
  await expect(page.getByText('Must be 0 or greater')).toBeVisible();
  await page.getByLabel('Max parallel tasks').fill('1.5');
  await page.getByRole('button', { name: 'Create', exact: true }).click();
  await expect(page.getByText('Must be an integer')).toBeVisible();
  await page.getByLabel('Max parallel tasks').fill('');
  await page.getByRole('button', { name: 'Create', exact: true }).click();

  await expect(page).toHaveURL(/\/project\/\d+\/history$/);
  await expect(page.getByTestId('snackbar')).toHaveText(`Project ${name} created`);
  await expect(page.getByTestId('current-project-name')).toHaveText(name);
  await expect(page.getByTestId('current-project-role')).toHaveText('Owner');
  await expect(page.getByText('No tasks yet')).toBeVisible();
  await expect(page.getByTestId('role-notice')).toHaveText('You can run any tasks');
  await shot(page, 'dashboard');

  await page.getByTestId('project-switcher').click();
  await expect(page.getByRole('menuitem', { name: new RegExp(name) })).toBeVisible();
  await expect(page.getByRole('menuitem', { name: 'New project…' })).toBeVisible();
  await page.keyboard.press('Escape');

  const id = Number(/\/project\/(\d+)\//.exec(page.url())![1]);
  const saved = await (await page.request.get(`/api/project/${id}`)).json();
  expect(saved).toMatchObject({ name, max_parallel_tasks: 0 });
});

test('edit project settings, see them after a reload, then delete the project', async ({ page }) => {
  const name = unique('Settings test');
  const id = await createProject(page, name);
  await page.getByRole('tab', { name: 'Settings' }).click();
  await expect(page).toHaveURL(new RegExp(`/project/${id}/settings$`));
  const renamed = unique('Renamed');
  await page.getByLabel('Project name').fill(renamed);
  await page.getByLabel('Send alerts').check();
  await page.getByLabel('Alert chat').fill('chat-42');
  await page.getByLabel('Max parallel tasks').fill('3');
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByTestId('snackbar')).toHaveText(`Project ${renamed} saved`);
  await expect(page.getByTestId('current-project-name')).toHaveText(renamed);
  await shot(page, 'settings');

  await page.reload();
  await expect(page.getByLabel('Project name')).toHaveValue(renamed);
  await expect(page.getByLabel('Send alerts')).toBeChecked();
  await expect(page.getByLabel('Alert chat')).toHaveValue('chat-42');
  await expect(page.getByLabel('Max parallel tasks')).toHaveValue('3');

  await page.getByLabel('Project name').fill('');
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByText('Project name is required')).toBeVisible();

  await page.getByRole('button', { name: 'Delete project' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
  await expect(page.getByTestId('snackbar')).toHaveText(`Project ${renamed} deleted`);
  await expect(page).not.toHaveURL(new RegExp(`/project/${id}/`));
  expect((await page.request.get(`/api/project/${id}`)).status()).toBe(404);
});

test('dark mode is remembered across a reload', async ({ page }) => {
  await createProject(page, unique('Dark'));
  const bg = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  const light = await bg();
  await openUserMenu(page);
  await page.getByRole('menuitem', { name: 'Dark mode' }).click();
  await page.keyboard.press('Escape');
  await expect.poll(bg).not.toBe(light);
  const dark = await bg();
  await page.reload();
  await expect(page.getByLabel('User menu')).toBeVisible();
  expect(await bg()).toBe(dark);
  await shot(page, 'dark-mode');
  await openUserMenu(page);
  await page.getByRole('menuitem', { name: 'Dark mode' }).click();
  await page.keyboard.press('Escape');
  await expect.poll(bg).toBe(light);
});
