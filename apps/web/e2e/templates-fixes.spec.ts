import { expect, test, type APIRequestContext, type Locator } from '@playwright/test';
import { choose, signIn, unique } from './helpers';
import { gitRepo } from './repo';
import { shot } from './shots';

const H = { 'x-gantry-request': '1' };

/** A project with a key, a repository, a variable group and an inventory, through the API. */
async function project(request: APIRequestContext, files: Record<string, string> = { 'site.yml': '- hosts: all\n' }) {
  const p = (await (await request.post('/api/projects', { data: { name: unique('Tpl') }, headers: H })).json()).id as number;
  const key = await (await request.post(`/api/project/${p}/keys`, { data: { name: 'none', type: 'none' }, headers: H })).json();
  const repo = await (await request.post(`/api/project/${p}/repositories`, { data: { name: 'scripts', git_url: gitRepo(files), ssh_key_id: key.id }, headers: H })).json();
  const env = await (await request.post(`/api/project/${p}/environment`, { data: { name: 'defaults', json: '{}' }, headers: H })).json();
  await request.post(`/api/project/${p}/inventory`, { data: { name: 'hosts', type: 'static', inventory: 'localhost', ssh_key_id: key.id }, headers: H });
  return { p, repositoryId: repo.id as number, environmentId: env.id as number };
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

const top = async (l: Locator) => (await l.boundingBox())!.y;
/** The top of a field's box (an autocomplete's input sits lower inside its box than a text field's). */
const fieldTop = (l: Locator) => top(l.locator('xpath=ancestor::div[contains(@class, "MuiFormControl-root")][1]'));

test.beforeEach(async ({ page }) => signIn(page));

test('template form: every problem at once, each at its field, the first focused; a survey default fills the new task', async ({ page }) => {
  const { p } = await project(page.request);
  await page.goto(`/project/${p}/templates`);
  await page.getByRole('button', { name: 'New template' }).click();
  const dialog = page.getByRole('dialog');
  await dialog.getByRole('textbox', { name: 'Name' }).first().fill('Site');
  await dialog.getByRole('button', { name: 'Add variable' }).click();
  const survey = dialog.getByRole('group', { name: 'Survey variable 1' });
  // The survey's fields: the dialog's second Name and its only Title.
  const surveyName = dialog.getByRole('textbox', { name: 'Name', exact: true }).nth(1);
  await dialog.getByRole('textbox', { name: 'Title', exact: true }).fill('Size');
  await dialog.getByRole('button', { name: 'Add vault' }).click();
  await dialog.getByRole('button', { name: 'Create' }).click();

  // One attempt flags every field, app-dependent ones, the survey's and the vault's included.
  const playbook = dialog.getByRole('textbox', { name: 'Playbook filename' });
  const inventory = dialog.getByRole('combobox', { name: 'Inventories' });
  const repository = dialog.getByRole('combobox', { name: 'Repository' });
  const environment = dialog.getByRole('combobox', { name: 'Variable group' });
  await expect(playbook).toHaveAttribute('aria-invalid', 'true');
  expect(await help(playbook)).toBe('Playbook filename is required');
  expect(await help(inventory)).toBe('Inventory is required');
  expect(await help(repository)).toBe('Repository is required');
  expect(await help(environment)).toBe('Variable group is required');
  expect(await help(surveyName)).toBe('Variable name is required');
  expect(await help(dialog.getByRole('combobox', { name: 'Password key' }))).toBe('Vault password is required');
  await expect(dialog.getByRole('textbox', { name: 'Name' }).first()).toHaveAttribute('aria-invalid', 'false');
  await expect(dialog.getByRole('alert')).toHaveCount(0);
  // The first problem is in view and focused; messages keep both columns in line.
  await expect(playbook).toBeFocused();
  await expect(playbook).toBeInViewport();
  expect(await fieldTop(playbook)).toBe(await fieldTop(inventory));
  expect(await fieldTop(repository)).toBe(await fieldTop(environment));
  await shot(page, 'template-form-errors');

  await playbook.fill('site.yml');
  await choose(page, inventory, 'hosts');
  await choose(page, repository, 'scripts');
  await choose(page, environment, 'defaults');
  await dialog.getByRole('button', { name: 'Remove vault' }).click();
  await expect(playbook).toHaveAttribute('aria-invalid', 'false');
  await dialog.getByRole('textbox', { name: 'Name' }).first().focus();
  await dialog.getByRole('button', { name: 'Create' }).click();
  // Only the survey variable's name is left: the dialog scrolls down to it.
  await expect(survey.getByRole('textbox', { name: 'Name' })).toBeFocused();
  await expect(surveyName).toBeInViewport({ ratio: 1 });
  await expect(dialog.locator('[aria-invalid="true"]')).toHaveCount(1);
  await shot(page, 'template-form-survey-error');

  await surveyName.fill('size');
  await survey.getByRole('textbox', { name: 'Default value' }).fill('3');
  await dialog.getByRole('button', { name: 'Create' }).click();
  await expect(page).toHaveURL(new RegExp(`/project/${p}/templates/\\d+/tasks$`));
  const saved = (await (await page.request.get(`/api/project/${p}/templates`)).json()) as Array<{ survey_vars: Array<{ default_value: string }> }>;
  expect(saved[0]!.survey_vars[0]!.default_value).toBe('3');

  await page.getByRole('button', { name: 'Edit template' }).click();
  await expect(page.getByRole('dialog').getByRole('group', { name: 'Survey variable 1' }).getByRole('textbox', { name: 'Default value' })).toHaveValue('3');
  await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
  await page.getByRole('button', { name: 'Run', exact: true }).click();
  await expect(page.getByRole('dialog').getByRole('textbox', { name: 'Size' })).toHaveValue('3');
});

test("a project's templates open on the view last visited in it", async ({ page }) => {
  const { p } = await project(page.request);
  const { p: other } = await project(page.request);
  for (const title of ['Deploys', 'Ops']) await page.request.post(`/api/project/${p}/views`, { data: { title }, headers: H });
  await page.goto(`/project/${p}/templates`);
  await page.getByRole('tab', { name: 'Ops' }).click();
  await expect(page).toHaveURL(new RegExp(`/project/${p}/views/\\d+/templates$`));
  const opsUrl = page.url();

  await page.getByRole('link', { name: 'Dashboard' }).click();
  await page.getByRole('link', { name: 'Task Templates' }).click();
  await expect(page).toHaveURL(opsUrl);
  await expect(page.getByRole('tab', { name: 'Ops' })).toHaveAttribute('aria-selected', 'true');
  // Another project keeps its own: it has not visited a view.
  await page.goto(`/project/${other}/templates`);
  await expect(page.getByRole('tab', { name: 'All' })).toHaveAttribute('aria-selected', 'true');
  await expect(page).toHaveURL(new RegExp(`/project/${other}/templates$`));

  // Choosing All is remembered too.
  await page.goto(`/project/${p}/templates`);
  await expect(page).toHaveURL(opsUrl);
  await page.getByRole('tab', { name: 'All' }).click();
  await expect(page).toHaveURL(new RegExp(`/project/${p}/templates$`));
  await page.getByRole('link', { name: 'Dashboard' }).click();
  await page.getByRole('link', { name: 'Task Templates' }).click();
  await expect(page).toHaveURL(new RegExp(`/project/${p}/templates$`));
  await expect(page.getByRole('tab', { name: 'All' })).toHaveAttribute('aria-selected', 'true');
});

test("history: the Message column shows the task's message only, the commit has its own column", async ({ page }) => {
  const { p, repositoryId, environmentId } = await project(page.request, { 'run.sh': 'echo hi\n' });
  const tpl = await (await page.request.post(`/api/project/${p}/templates`, { data: { name: 'Hello', app: 'bash', playbook: 'run.sh', repository_id: repositoryId, environment_id: environmentId }, headers: H })).json();
  const run = async (message: string) => (await (await page.request.post(`/api/project/${p}/tasks`, { data: { template_id: tpl.id, message }, headers: H })).json()).id as number;
  const quiet = await run('');
  const said = await run('Nightly check');
  const commitOf = async (id: number) => {
    let task: { status: string; commit_hash: string | null } = { status: '', commit_hash: null };
    await expect
      .poll(async () => (task = await (await page.request.get(`/api/project/${p}/tasks/${id}`)).json()).status, { timeout: 30_000 })
      .toBe('success');
    return task.commit_hash!;
  };
  const hash = await commitOf(quiet);
  await commitOf(said);

  await page.goto(`/project/${p}/history`);
  const table = page.getByRole('table');
  await expect(table.getByRole('link', { name: `#${said}`, exact: true })).toBeVisible();
  const headers = await table.getByRole('columnheader').allTextContents();
  const col = (name: string) => headers.indexOf(name);
  expect(col('Commit')).toBeGreaterThan(col('Message'));
  const cells = (id: number) => table.getByRole('row').filter({ has: page.getByRole('link', { name: `#${id}`, exact: true }) }).getByRole('cell');
  await expect(cells(quiet).nth(col('Message'))).toHaveText('');
  await expect(cells(said).nth(col('Message'))).toHaveText('Nightly check');
  await expect(cells(quiet).nth(col('Commit'))).toHaveText(`${hash.slice(0, 10)} e2e`);
  await shot(page, 'history-commit');
});
