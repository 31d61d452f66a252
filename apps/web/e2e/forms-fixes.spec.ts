import { expect, test, type APIRequestContext, type Locator, type Page } from '@playwright/test';
import { choose, signIn, unique } from './helpers';
import { gitRepo } from './repo';

const H = { 'x-gantry-request': '1' };

/** A project with a key, a repository (running `script` as run.sh) and a variable group, through the API. */
async function project(request: APIRequestContext, script = 'echo hi\n') {
  const p = ((await (await request.post('/api/projects', { data: { name: unique('Forms') }, headers: H })).json()) as { id: number }).id;
  const key = (await (await request.post(`/api/project/${p}/keys`, { data: { name: 'deploy login', type: 'login_password', login_password: { login: 'deploy', password: 's3cret' } }, headers: H })).json()) as { id: number };
  const repo = (await (await request.post(`/api/project/${p}/repositories`, { data: { name: 'scripts', git_url: gitRepo({ 'run.sh': script }), ssh_key_id: key.id }, headers: H })).json()) as { id: number };
  const env = (await (await request.post(`/api/project/${p}/environment`, { data: { name: 'defaults', json: '{}' }, headers: H })).json()) as { id: number };
  return { p, keyId: key.id, repositoryId: repo.id, environmentId: env.id };
}

async function bashTemplate(request: APIRequestContext, ids: { p: number; repositoryId: number; environmentId: number }, name = 'Print'): Promise<number> {
  const res = await request.post(`/api/project/${ids.p}/templates`, {
    data: { name, app: 'bash', playbook: 'run.sh', repository_id: ids.repositoryId, environment_id: ids.environmentId },
    headers: H,
  });
  expect(res.status()).toBe(201);
  return ((await res.json()) as { id: number }).id;
}

/** The text under a form field (its accessible description): its message, or its help. */
const help = (field: Locator) =>
  field.evaluate((el) =>
    (el.getAttribute('aria-describedby') ?? '')
      .split(' ')
      .filter(Boolean)
      .map((id) => document.getElementById(id)?.textContent ?? '')
      .join(' ')
      .trim(),
  );

const dialog = (page: Page) => page.getByRole('dialog');

test.beforeEach(async ({ page }) => signIn(page));

test('repository and inventory forms show every problem in one attempt; a script template asks for its script', async ({ page }) => {
  const ids = await project(page.request);
  await page.goto(`/project/${ids.p}/repositories`);
  await page.getByRole('button', { name: 'New repository' }).click();
  await dialog(page).getByLabel('URL or path').fill('git@github.com:org/app.git');
  await dialog(page).getByLabel('Branch').fill('');
  await dialog(page).getByRole('button', { name: 'Create' }).click();
  // Name, key and branch at once: the branch rule no longer waits for the others.
  expect(await help(dialog(page).getByRole('textbox', { name: 'Name', exact: true }))).toBe('Name is required');
  expect(await help(dialog(page).getByLabel('Branch'))).toBe('Branch is required');
  expect(await help(dialog(page).getByRole('combobox', { name: 'Access key' }))).toBe('Access key is required');
  await page.screenshot({ path: '/tmp/forms/repository-errors.png' });
  await dialog(page).getByRole('button', { name: 'Cancel' }).click();

  await page.goto(`/project/${ids.p}/inventory`);
  await page.getByRole('button', { name: 'New inventory' }).click();
  await page.getByRole('menuitem', { name: /Ansible inventory/ }).click();
  await choose(page, dialog(page).getByLabel('Type'), 'File in a repository');
  await dialog(page).getByRole('button', { name: 'Create' }).click();
  expect(await help(dialog(page).getByRole('textbox', { name: 'Name', exact: true }))).toBe('Name is required');
  expect(await help(dialog(page).getByLabel('Path'))).toBe('Path is required');
  await dialog(page).getByRole('button', { name: 'Cancel' }).click();

  await page.goto(`/project/${ids.p}/templates`);
  await page.getByRole('button', { name: 'New template' }).click();
  await dialog(page).getByRole('textbox', { name: 'Name' }).first().fill('Backup');
  await choose(page, dialog(page).getByRole('combobox', { name: 'App' }), 'Bash Script');
  await dialog(page).getByRole('button', { name: 'Create' }).click();
  const script = dialog(page).getByRole('textbox', { name: 'Script filename' });
  await expect(script).toHaveAttribute('aria-invalid', 'true');
  expect(await help(script)).toBe('Script filename is required');
  // The server words it the same way for a script template, and keeps the playbook's for Ansible.
  const bash = await page.request.post(`/api/project/${ids.p}/templates`, { data: { name: 'x', app: 'bash', repository_id: ids.repositoryId, environment_id: ids.environmentId }, headers: H });
  expect(((await bash.json()) as { error: string }).error).toBe('Script filename is required');
});

test('an edited key shows its secret as stored, locked, with a Replace button that opens it from the keyboard', async ({ page }) => {
  const ids = await project(page.request);
  await page.goto(`/project/${ids.p}/keys`);
  await page.getByRole('button', { name: 'Edit deploy login' }).click();
  const stored = dialog(page).getByTestId('stored-secret');
  await expect(stored).toContainText('Stored');
  await expect(stored.locator('svg').first()).toBeVisible();
  await expect(dialog(page).getByLabel('Password')).toHaveCount(0);
  await expect(dialog(page).getByLabel('Login')).toHaveValue('deploy');
  await page.screenshot({ path: '/tmp/forms/key-stored.png' });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: '/tmp/forms/key-stored-phone.png' });
  await page.setViewportSize({ width: 1280, height: 800 });

  const replace = dialog(page).getByRole('button', { name: 'Replace' });
  await replace.focus();
  await page.keyboard.press('Enter');
  await expect(dialog(page).getByLabel('Password')).toBeEnabled();
  await expect(dialog(page).getByLabel('Password')).toBeFocused();
  await dialog(page).getByRole('button', { name: 'Save' }).click();
  await expect(dialog(page).getByText('Password is required')).toBeVisible();
  await dialog(page).getByRole('button', { name: 'Keep the stored secret' }).click();
  await expect(stored).toBeVisible();
  await dialog(page).getByRole('textbox', { name: 'Name', exact: true }).fill('deploy login 2');
  await dialog(page).getByRole('button', { name: 'Save' }).click();
  await expect(page.getByRole('row', { name: /deploy login 2/ })).toBeVisible();
});

test('small affordances: reference links, why Save is off, a one-time role notice, an empty template, template columns', async ({ page }) => {
  const ids = await project(page.request);
  // The role notice: shown on the first visit, dismissible, not shown again this session.
  await page.goto(`/project/${ids.p}/history`);
  const notice = page.getByTestId('role-notice');
  await expect(notice).toHaveText('You can run any tasks');
  await notice.getByRole('button', { name: 'Dismiss' }).click();
  await expect(notice).toHaveCount(0);
  await page.goto(`/project/${ids.p}/activity`);
  await page.goto(`/project/${ids.p}/history`);
  await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
  await expect(notice).toHaveCount(0);

  // "Can't delete": what uses the key, drawn as links.
  await page.goto(`/project/${ids.p}/keys`);
  await page.getByRole('button', { name: 'Delete deploy login' }).click();
  const refs = page.getByRole('dialog', { name: "Can't delete the key" });
  const link = refs.getByRole('link', { name: 'scripts' });
  await expect(link).toBeVisible();
  const style = await link.locator('.MuiListItemText-primary').evaluate((el) => {
    const s = getComputedStyle(el);
    return { line: s.textDecorationLine, color: s.color };
  });
  expect(style.line).toBe('underline');
  // In the theme's link colour (the primary colour, as the dialog's text button has it).
  const primary = await refs.getByRole('button', { name: 'Close' }).evaluate((el) => getComputedStyle(el).color);
  expect(style.color).toBe(primary);
  await page.screenshot({ path: '/tmp/forms/references.png' });
  await refs.getByRole('button', { name: 'Close' }).click();

  // A template without tasks offers to run it.
  const templateId = await bashTemplate(page.request, ids);
  await page.goto(`/project/${ids.p}/templates/${templateId}/tasks`);
  await expect(page.getByText('No tasks yet')).toBeVisible();
  // The page's own Run button, and the empty list's (named apart, so "Run" stays one button).
  await expect(page.getByRole('button', { name: 'Run', exact: true })).toHaveCount(1);
  await page.getByRole('button', { name: 'Run the first task' }).click();
  await expect(page.getByRole('dialog', { name: 'New task: Print' })).toBeVisible();
  await page.keyboard.press('Escape');

  // The views editor says why Save is off.
  await page.goto(`/project/${ids.p}/templates`);
  await page.getByRole('button', { name: 'Edit views' }).click();
  const views = page.getByRole('dialog', { name: 'Edit views' });
  await views.getByRole('button', { name: 'Add view' }).click();
  const save = views.getByRole('button', { name: 'Save' });
  await expect(save).toBeDisabled();
  await expect(views.getByText('Every view needs a title before saving.')).toBeVisible();
  await expect(save).toHaveAttribute('aria-describedby', 'views-save-help');
  await views.getByRole('textbox', { name: 'View title' }).fill('Nightly');
  await expect(views.getByText('Every view needs a title before saving.')).toHaveCount(0);
  await expect(save).toBeEnabled();
  await views.getByRole('button', { name: 'Cancel' }).click();

  // Template list columns: hide one, and it stays hidden after a reload.
  const table = page.getByRole('table', { name: 'Task Templates' });
  await expect(table.getByRole('columnheader', { name: 'App' })).toBeVisible();
  await page.getByRole('button', { name: 'Columns' }).click();
  await page.getByRole('menuitemcheckbox', { name: 'App' }).click();
  await page.keyboard.press('Escape');
  await expect(table.getByRole('columnheader', { name: 'App' })).toHaveCount(0);
  await expect(table.getByRole('columnheader', { name: 'Type' })).toBeVisible();
  await page.reload();
  await expect(table.getByRole('cell', { name: 'Print', exact: true })).toBeVisible();
  await expect(table.getByRole('columnheader', { name: 'App' })).toHaveCount(0);
  await page.screenshot({ path: '/tmp/forms/templates-columns.png' });
});

test('a fast chatty task that ends leaves the followed log at its end', async ({ page }) => {
  const script = 'for i in $(seq 1 40); do seq $((i * 100 - 99)) $((i * 100)); sleep 0.05; done\nprintf \'wide %0400d\\n\' 0\necho the-end\n';
  const ids = await project(page.request, script);
  const templateId = await bashTemplate(page.request, ids, 'Chatty');
  const res = await page.request.post(`/api/project/${ids.p}/tasks`, { data: { template_id: templateId }, headers: H });
  const id = ((await res.json()) as { id: number }).id;
  await page.goto(`/project/${ids.p}/history?t=${id}`);
  const log = dialog(page).getByTestId('task-log');
  await expect(dialog(page).getByTestId('task-status')).toHaveAttribute('data-status', 'success', { timeout: 60_000 });
  const last = page.locator('[data-testid="log-line"]').filter({ has: page.locator('.log-text', { hasText: /^the-end$/ }) });
  await expect(last).toBeInViewport({ ratio: 1 });
  await expect.poll(() => log.evaluate((el) => el.scrollHeight - el.scrollTop - el.clientHeight)).toBeLessThan(2);
});
