import { expect, test, type Page } from '@playwright/test';
import { signIn, unique } from './helpers';
import { gitRepo } from './repo';
import { shot } from './shots';

const H = { 'x-gantry-request': '1' };

async function newProject(page: Page, prefix: string): Promise<number> {
  return ((await (await page.request.post('/api/projects', { data: { name: unique(prefix) }, headers: H })).json()) as { id: number }).id;
}

/** Answers after `ms`, then lets the handler decide (fail or pass through). */
const after = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('a list loads with skeleton rows, fails with the server error and Retry, never says it is empty, and keeps its rows on refetch', async ({ page }) => {
  await signIn(page);
  const p = await newProject(page, 'States');
  const key = (await (await page.request.post(`/api/project/${p}/keys`, { data: { name: 'none', type: 'none' }, headers: H })).json()) as { id: number };
  await page.request.post(`/api/project/${p}/inventory`, { data: { name: 'web hosts', type: 'static', inventory: 'a.example', ssh_key_id: key.id }, headers: H });
  // Remember whether the empty text ever showed, even for one frame.
  await page.addInitScript(() => {
    const w = window as unknown as { sawEmpty?: boolean };
    new MutationObserver(() => {
      if (document.body?.textContent?.includes('No inventories yet')) w.sawEmpty = true;
    }).observe(document, { subtree: true, childList: true, characterData: true });
  });
  await page.route('**/api/project/*/inventory', async (route) => {
    await after(1500);
    await route.fulfill({ status: 500, contentType: 'application/json', body: JSON.stringify({ error: 'database is down' }) });
  });
  await page.goto(`/project/${p}/inventory`);
  await expect(page.getByTestId('table-skeleton')).toBeVisible();
  await shot(page, 'list-loading');
  const failure = page.getByRole('alert').filter({ hasText: 'database is down' });
  await expect(failure).toBeVisible();
  await expect(page.getByTestId('table-skeleton')).toHaveCount(0);
  await shot(page, 'list-error');
  await page.unroute('**/api/project/*/inventory');
  await failure.getByRole('button', { name: 'Retry' }).click();
  await expect(page.getByRole('row', { name: /web hosts/ })).toBeVisible();
  expect(await page.evaluate(() => (window as unknown as { sawEmpty?: boolean }).sawEmpty ?? false)).toBe(false);

  // Back on a list already loaded once, its rows show at once while it is read again.
  await page.getByRole('link', { name: 'Keys' }).click();
  await expect(page.getByRole('row', { name: /none/ })).toBeVisible();
  await page.route('**/api/project/*/inventory', async (route) => {
    await after(2000);
    await route.continue();
  });
  await page.getByRole('link', { name: 'Inventory' }).click();
  await expect(page.getByRole('row', { name: /web hosts/ })).toBeVisible({ timeout: 1000 });
  await expect(page.getByTestId('table-skeleton')).toHaveCount(0);
  await page.unroute('**/api/project/*/inventory');
});

test('an empty list gives a hint and its create button; dialogs focus their first field, submit on Enter, close on Esc', async ({ page }) => {
  await signIn(page);
  const p = await newProject(page, 'Empty');
  await page.goto(`/project/${p}/keys`);
  await expect(page.getByText('No keys yet')).toBeVisible();
  await expect(page.getByTestId('empty-hint')).toBeVisible();
  await shot(page, 'list-empty');
  await page.getByRole('button', { name: 'Create the first key' }).click();
  const dialog = page.getByRole('dialog');
  const name = dialog.getByRole('textbox', { name: 'Name' });
  await expect(name).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(dialog).toHaveCount(0);

  await page.getByRole('button', { name: 'New key' }).first().click();
  await expect(name).toBeFocused();
  await page.keyboard.type('deploy key');
  await dialog.getByLabel('Type').click();
  await page.getByRole('option', { name: 'None' }).click();
  await name.press('Enter');
  await expect(dialog).toHaveCount(0);
  await expect(page.getByRole('row', { name: /deploy key/ })).toBeVisible();

  // A schedule: its dialog submits on Enter too.
  const repo = (await (await page.request.post(`/api/project/${p}/repositories`, { data: { name: 'r', git_url: gitRepo({ 'a.sh': 'echo a\n' }), ssh_key_id: (await (await page.request.get(`/api/project/${p}/keys`)).json())[0].id }, headers: H })).json()) as { id: number };
  const env = (await (await page.request.post(`/api/project/${p}/environment`, { data: { name: 'e' }, headers: H })).json()) as { id: number };
  await page.request.post(`/api/project/${p}/templates`, { data: { name: 'Nightly', app: 'bash', playbook: 'a.sh', repository_id: repo.id, environment_id: env.id }, headers: H });
  await page.goto(`/project/${p}/schedules`);
  await page.getByRole('button', { name: 'New schedule' }).first().click();
  await expect(dialog.getByRole('textbox', { name: 'Name' })).toBeFocused();
  await page.keyboard.type('hourly');
  await dialog.getByLabel('Template').click();
  await page.getByRole('option', { name: 'Nightly' }).click();
  await dialog.getByRole('textbox', { name: 'Name' }).press('Enter');
  await expect(dialog).toHaveCount(0);

  // The active switch moves at once; a failure puts it back and says why.
  const active = page.getByRole('switch', { name: 'Active: hourly' });
  await expect(active).toBeChecked();
  await page.route('**/api/project/*/schedules/*/active', async (route) => {
    await after(1500);
    await route.fulfill({ status: 500, contentType: 'application/json', body: JSON.stringify({ error: 'scheduler is down' }) });
  });
  await active.click();
  await expect(active).not.toBeChecked({ timeout: 500 });
  await expect(page.getByTestId('snackbar')).toHaveText('scheduler is down');
  await expect(active).toBeChecked();
  await page.unroute('**/api/project/*/schedules/*/active');

  // The Activity tab keeps each time on one line.
  await page.goto(`/project/${p}/activity`);
  const time = page.getByRole('table', { name: 'Activity' }).getByRole('row').nth(1).getByRole('cell').first();
  await expect(time).toHaveCSS('white-space', 'nowrap');
});

test('the app switch moves at once and rolls back on failure; a long name wraps inside the snackbar', async ({ page }) => {
  await signIn(page);
  await page.goto('/apps');
  const python = page.getByLabel('Python Script active');
  await expect(python).toBeChecked();
  await page.route('**/api/apps/*/active', async (route) => {
    await after(1500);
    await route.fulfill({ status: 500, contentType: 'application/json', body: JSON.stringify({ error: 'apps are locked' }) });
  });
  await python.click();
  await expect(python).not.toBeChecked({ timeout: 500 });
  await expect(page.getByTestId('snackbar')).toHaveText('apps are locked');
  await expect(python).toBeChecked();
  await page.unroute('**/api/apps/*/active');

  // An app whose title is one long word: the snackbar naming it stays on screen and wraps.
  const long = `Very${'long'.repeat(60)}Title`;
  await page.route('**/api/apps', async (route) => {
    const res = await route.fetch();
    const apps = (await res.json()) as { id: string; title: string }[];
    await route.fulfill({ response: res, json: apps.map((a) => (a.id === 'python' ? { ...a, title: long } : a)) });
  });
  await page.route('**/api/apps/*/active', (route) => route.fulfill({ status: 204 }));
  await page.reload();
  const renamed = page.getByLabel(`${long} active`);
  await renamed.click();
  const snackbar = page.getByTestId('snackbar');
  await expect(snackbar).toContainText(long);
  const box = (await snackbar.boundingBox())!;
  const viewport = page.viewportSize()!;
  expect(box.x).toBeGreaterThanOrEqual(0);
  expect(box.x + box.width).toBeLessThanOrEqual(viewport.width);
  expect(await snackbar.evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true);
  await page.unroute('**/api/apps/*/active');
  await page.unroute('**/api/apps');
});
