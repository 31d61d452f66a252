import { expect, test } from '@playwright/test';
import { signIn, signInAsNewUser, unique } from './helpers';
import { shot } from './shots';

const H = { 'x-gantry-request': '1' };

test('dead ends lead somewhere: bad URLs, an unknown template, an unknown task, the sign-in page while signed in', async ({ page }) => {
  await signIn(page);
  const name = unique('Nav');
  const p = ((await (await page.request.post('/api/projects', { data: { name }, headers: H })).json()) as { id: number }).id;

  await page.goto('/no/such/page');
  await expect(page.getByRole('heading', { name: 'Incorrect URL' })).toBeVisible();
  await shot(page, 'incorrect-url');
  await page.getByRole('link', { name: 'Go to the dashboard' }).click();
  await expect(page).toHaveURL(/\/project\/\d+\/history$/);

  await page.goto('/project/999999/keys');
  await expect(page.getByRole('heading', { name: 'Incorrect URL' })).toBeVisible();

  await page.goto(`/project/${p}/templates/99999`);
  await expect(page.getByRole('heading', { name: 'Template not found' })).toBeVisible();
  await page.getByRole('link', { name: 'Back to templates' }).click();
  await expect(page).toHaveURL(new RegExp(`/project/${p}/templates$`));

  // An unknown task in ?t= opens no dialog: a snackbar says so.
  await page.addInitScript(() => {
    const w = window as unknown as { sawDialog?: boolean };
    new MutationObserver(() => {
      if (document.querySelector('[role="dialog"]')) w.sawDialog = true;
    }).observe(document, { subtree: true, childList: true });
  });
  await page.goto(`/project/${p}/history?t=99999`);
  await expect(page.getByTestId('snackbar')).toHaveText('Task #99999 not found');
  await expect(page.getByRole('heading', { name })).toBeVisible();
  expect(await page.evaluate(() => (window as unknown as { sawDialog?: boolean }).sawDialog ?? false)).toBe(false);

  await page.goto('/auth/login');
  await expect(page).toHaveURL(new RegExp(`/project/${p}/history$`));
  await expect(page.getByLabel('User menu')).toBeVisible();
});

test('admin pages keep the last project in the sidebar; other users are told they have no access', async ({ page }) => {
  await signIn(page);
  const name = unique('Last');
  const p = ((await (await page.request.post('/api/projects', { data: { name }, headers: H })).json()) as { id: number }).id;
  await page.goto(`/project/${p}/history`);
  await expect(page.getByRole('heading', { name })).toBeVisible();
  for (const path of ['/users', '/tasks', '/apps', '/tokens', '/runners', '/cluster']) {
    await page.goto(path);
    await expect(page.getByTestId('current-project-name')).toHaveText(name);
    await expect(page.getByRole('link', { name: 'Inventory' })).toHaveAttribute('href', `/project/${p}/inventory`);
  }

  await signInAsNewUser(page, 'nav', 'Nora Nonadmin', 'nora-pass-123');
  for (const path of ['/users', '/apps', '/runners', '/cluster', '/tasks']) {
    await page.goto(path);
    await expect(page.getByRole('heading', { name: 'You do not have access' })).toBeVisible();
  }
  await page.goto('/tokens');
  await expect(page.getByRole('heading', { name: 'API tokens' })).toBeVisible();
});
