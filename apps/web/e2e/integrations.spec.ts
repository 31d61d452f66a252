import { expect, test, type Page } from '@playwright/test';
import { createProject, signIn, unique } from './helpers';
import { gitRepo } from './repo';
import { shot } from './shots';

const H = { 'x-gantry-request': '1' };

/** A Bash template (with the key, repository and variable group it needs) made through the API. */
async function bashTemplate(page: Page, p: number, name: string): Promise<{ id: number }> {
  const key = await (
    await page.request.post(`/api/project/${p}/keys`, { data: { name: 'none', type: 'none' }, headers: H })
  ).json();
  const repo = await (
    await page.request.post(`/api/project/${p}/repositories`, {
      data: { name: 'r', git_url: gitRepo({ 'hook.sh': 'echo "branch=$BRANCH"\n' }), ssh_key_id: key.id },
      headers: H,
    })
  ).json();
  const env = await (
    await page.request.post(`/api/project/${p}/environment`, { data: { name: 'e' }, headers: H })
  ).json();
  const res = await page.request.post(`/api/project/${p}/templates`, {
    data: { name, app: 'bash', playbook: 'hook.sh', repository_id: repo.id, environment_id: env.id },
    headers: H,
  });
  expect(res.status()).toBe(201);
  return res.json();
}

test('create an integration with a matcher, a value and an alias; a POST to the alias starts a task', async ({
  page,
  context,
  request,
}) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  await signIn(page);
  const p = await createProject(page, unique('Hooks'));
  const tpl = await bashTemplate(page, p, 'Deploy hook');

  await page.getByRole('link', { name: 'Integrations' }).click();
  await expect(page).toHaveURL(new RegExp(`/project/${p}/integrations$`));
  await expect(page.getByText('No integrations yet')).toBeVisible();
  await expect(page.getByRole('region', { name: 'Project aliases' })).toContainText('No aliases yet');

  await page.getByRole('button', { name: 'New integration' }).click();
  const dialog = page.getByRole('dialog');
  await dialog.getByRole('button', { name: 'Create' }).click();
  await expect(dialog.getByText('Name is required')).toBeVisible();
  await dialog.getByRole('textbox', { name: 'Name' }).fill('GitHub push');
  await dialog.getByLabel('Template').click();
  await page.getByRole('option', { name: 'Deploy hook' }).click();
  // The header field is there only for token and hmac; the secret for every method but none.
  await dialog.getByLabel('Authentication').click();
  await page.getByRole('option', { name: 'Token' }).click();
  await expect(dialog.getByRole('textbox', { name: 'Auth header' })).toBeVisible();
  await expect(dialog.getByLabel('Secret key')).toBeVisible();
  await expect(page.locator('.MuiMenu-root')).toHaveCount(0); // the menu has faded out
  await shot(page, 'integration-dialog');
  await dialog.getByLabel('Authentication').click();
  await page.getByRole('option', { name: 'None' }).click();
  await expect(dialog.getByRole('textbox', { name: 'Auth header' })).toHaveCount(0);
  await expect(dialog.getByLabel('Secret key')).toHaveCount(0);
  await dialog.getByRole('textbox', { name: 'Task message' }).fill('Pushed to GitHub');
  const extraVars = dialog.getByRole('textbox', { name: 'Extra variables (JSON)' });
  await extraVars.fill('{not json');
  await dialog.getByRole('button', { name: 'Create' }).click();
  await expect(dialog.getByText('Extra variables must be a JSON object')).toBeVisible();
  await extraVars.fill('{"stage": "prod"}');
  await dialog.getByRole('button', { name: 'Create' }).click();
  await expect(dialog).toHaveCount(0);

  const row = page.getByRole('row', { name: /GitHub push/ });
  await expect(row).toContainText('Deploy hook');
  await expect(row).toContainText('None');

  // A project-level alias: added, listed with its URL, deleted after confirming.
  const projectAliases = page.getByRole('region', { name: 'Project aliases' });
  await projectAliases.getByRole('button', { name: 'Add alias' }).click();
  await expect(projectAliases.getByTestId('alias-url')).toHaveText(/\/api\/integrations\/[A-Za-z0-9_-]{16,64}$/);
  await shot(page, 'integrations');
  await projectAliases.getByRole('button', { name: /^Delete alias/ }).click();
  await dialog.getByRole('button', { name: 'Delete' }).click();
  await expect(projectAliases).toContainText('No aliases yet');

  await row.getByRole('link', { name: 'GitHub push' }).click();
  await expect(page).toHaveURL(new RegExp(`/project/${p}/integrations/\\d+$`));
  await expect(page.getByRole('heading', { name: 'GitHub push', level: 1 })).toBeVisible();
  await expect(page.getByTestId('integration-how')).toContainText('Every matcher must hold');

  // A matcher: every field is required.
  await page.getByRole('button', { name: 'Add matcher' }).click();
  await dialog.getByRole('button', { name: 'Create' }).click();
  await expect(dialog.getByText('Name is required')).toBeVisible();
  await expect(dialog.getByText('Match source is required')).toBeVisible();
  await shot(page, 'matcher-errors');
  await dialog.getByRole('textbox', { name: 'Name' }).fill('main branch');
  await dialog.getByRole('combobox', { name: 'Match source' }).click();
  await page.getByRole('option', { name: 'Body' }).click();
  await expect(dialog.getByRole('combobox', { name: 'Body data format' })).toHaveText('JSON');
  await dialog.getByRole('textbox', { name: 'Key' }).fill('ref');
  await dialog.getByRole('combobox', { name: 'Comparison method' }).click();
  await page.getByRole('option', { name: 'Equals', exact: true }).click();
  await dialog.getByRole('textbox', { name: 'Value' }).fill('refs/heads/main');
  await dialog.getByRole('button', { name: 'Create' }).click();
  await expect(dialog).toHaveCount(0);
  const matchers = page.getByRole('region', { name: 'Matchers' });
  await expect(matchers.getByRole('row', { name: /main branch/ })).toContainText('refs/heads/main');

  // An extracted value handed to the task as an environment variable.
  await page.getByRole('button', { name: 'Add value' }).click();
  await dialog.getByRole('textbox', { name: 'Name' }).fill('branch');
  await dialog.getByRole('combobox', { name: 'Value source' }).click();
  await page.getByRole('option', { name: 'Body' }).click();
  await dialog.getByRole('textbox', { name: 'Key' }).fill('ref');
  await dialog.getByRole('combobox', { name: 'Variable type' }).click();
  await page.getByRole('option', { name: 'Environment variable' }).click();
  await dialog.getByRole('textbox', { name: 'Variable', exact: true }).fill('BRANCH');
  await dialog.getByRole('button', { name: 'Create' }).click();
  await expect(dialog).toHaveCount(0);
  await expect(
    page.getByRole('region', { name: 'Extracted values' }).getByRole('row', { name: /branch/ }),
  ).toContainText('BRANCH');

  // An alias, and its URL copied to the clipboard.
  const aliases = page.getByRole('region', { name: 'Aliases' });
  await aliases.getByRole('button', { name: 'Add alias' }).click();
  const urlText = aliases.getByTestId('alias-url');
  await expect(urlText).toHaveCount(1);
  const url = (await urlText.textContent()) ?? '';
  expect(url).toMatch(/^https?:\/\/[^/]+\/api\/integrations\/[A-Za-z0-9_-]{16,64}$/);
  await aliases.getByRole('button', { name: `Copy ${url}` }).click();
  await expect(page.getByTestId('snackbar')).toHaveText('The alias URL has been copied to the clipboard.');
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(url);
  await page.mouse.move(0, 0);
  await page.screenshot({ path: '/tmp/integration-detail.png', fullPage: true });
  await shot(page, 'integration');

  // A request that fails the matcher starts nothing; one that passes starts the template.
  const tasks = async () =>
    (await (await page.request.get(`/api/project/${p}/tasks`)).json()) as {
      template_id: number;
      integration_id: number | null;
      environment: string | null;
      message: string;
    }[];
  expect((await request.post(url, { data: { ref: 'refs/heads/dev' } })).status()).toBeLessThan(300);
  const hit = await request.post(url, { data: { ref: 'refs/heads/main' } });
  expect(hit.status()).toBeLessThan(300);
  await expect.poll(async () => (await tasks()).length).toBe(1);
  const [task] = await tasks();
  expect(task!.template_id).toBe(tpl.id);
  expect(task!.integration_id).not.toBeNull();
  // The integration's message and extra variables reach the task.
  expect(task!.message).toBe('Pushed to GitHub');
  expect(JSON.parse(task!.environment ?? '{}')).toMatchObject({ stage: 'prod' });
  const detail = page.url();
  await page.goto(`/project/${p}/history`);
  await expect(page.getByRole('row', { name: /Pushed to GitHub/ })).toHaveCount(1);

  // Deleting the integration (after confirming) leads back to an empty list.
  await page.goto(detail);
  await page.getByRole('button', { name: 'Delete integration' }).click();
  await dialog.getByRole('button', { name: 'Delete' }).click();
  await expect(page).toHaveURL(new RegExp(`/project/${p}/integrations$`));
  await expect(page.getByText('No integrations yet')).toBeVisible();
  expect((await request.post(url, { data: { ref: 'refs/heads/main' } })).status()).toBe(404);
});

test('a task runner sees integrations but cannot change them', async ({ page, browser }) => {
  await signIn(page);
  const login = `ir${Date.now().toString(36)}`;
  const user = await (
    await page.request.post('/api/users', {
      data: { name: `Runner ${login}`, username: login, email: `${login}@example.com`, password: 'p' },
      headers: H,
    })
  ).json();
  const p = await createProject(page, unique('Hooks RO'));
  const tpl = await bashTemplate(page, p, 'Deploy hook');
  expect(
    (
      await page.request.post(`/api/project/${p}/users`, {
        data: { user_id: user.id, role: 'task_runner' },
        headers: H,
      })
    ).status(),
  ).toBeLessThan(300);
  const integration = await (
    await page.request.post(`/api/project/${p}/integrations`, {
      data: { name: 'Read only hook', template_id: tpl.id },
      headers: H,
    })
  ).json();
  await page.request.post(`/api/project/${p}/integrations/${integration.id}/aliases`, { headers: H });

  const other = await browser.newContext();
  const runner = await other.newPage();
  await signIn(runner, login, 'p');
  await runner.goto(`/project/${p}/integrations`);
  await expect(runner.getByRole('row', { name: /Read only hook/ })).toContainText('Deploy hook');
  await expect(runner.getByRole('button', { name: 'New integration' })).toHaveCount(0);
  await expect(runner.getByRole('button', { name: 'Delete Read only hook' })).toHaveCount(0);
  await expect(runner.getByRole('button', { name: 'Add alias' })).toHaveCount(0);

  await runner.getByRole('link', { name: 'Read only hook' }).click();
  await expect(runner.getByRole('heading', { name: 'Read only hook', level: 1 })).toBeVisible();
  // Aliases are where anyone can start the task: only members who may update the project see them.
  await expect(runner.getByTestId('alias-url')).toHaveCount(0);
  await expect(runner.getByRole('button', { name: 'Edit integration' })).toHaveCount(0);
  await expect(runner.getByRole('button', { name: 'Add matcher' })).toHaveCount(0);
  await expect(runner.getByRole('button', { name: 'Add value' })).toHaveCount(0);
  await expect(runner.getByRole('button', { name: /^Delete alias/ })).toHaveCount(0);
  await other.close();
});

test('an integration saved by Semaphore\'s console with auth "None" ("") edits as None, with no header or secret field', async ({
  page,
}) => {
  await signIn(page);
  const p = await createProject(page, unique('Hooks none'));
  const tpl = await bashTemplate(page, p, 'Open hook');
  const key = await (
    await page.request.post(`/api/project/${p}/keys`, {
      data: { name: 'hook secret', type: 'login_password', login_password: { login: 'hook', password: 's3cret' } },
      headers: H,
    })
  ).json();
  // Semaphore's form: a token integration, then None picked; the header and key stay in its body.
  const created = await page.request.post(`/api/project/${p}/integrations`, {
    data: {
      template_id: tpl.id,
      task_params: {},
      name: 'Semaphore hook',
      auth_method: 'token',
      auth_secret_id: key.id,
      project_id: p,
    },
    headers: H,
  });
  expect(created.status()).toBe(201);
  const item = await created.json();
  const put = await page.request.put(`/api/project/${p}/integrations/${item.id}`, {
    data: { ...item, auth_method: '', auth_header: 'X-Token', auth_secret_id: key.id, project_id: p },
    headers: H,
  });
  expect(put.status()).toBe(204);

  await page.goto(`/project/${p}/integrations/${item.id}`);
  await expect(page.getByRole('heading', { name: 'Semaphore hook', level: 1 })).toBeVisible();
  // Answered as Semaphore answers it (""), and shown as None.
  expect((await (await page.request.get(`/api/project/${p}/integrations/${item.id}`)).json()).auth_method).toBe('');
  await expect(page.getByText('Authentication: None')).toBeVisible();
  await page.getByRole('button', { name: 'Edit integration' }).click();
  const dialog = page.getByRole('dialog');
  await expect(dialog.getByRole('combobox', { name: 'Authentication' })).toHaveText('None');
  await expect(dialog.getByRole('textbox', { name: 'Auth header' })).toHaveCount(0);
  await expect(dialog.getByLabel('Secret key')).toHaveCount(0);
  // Saved from Gantry's console it stays none.
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(dialog).toHaveCount(0);
  const saved = await (await page.request.get(`/api/project/${p}/integrations/${item.id}`)).json();
  expect(saved).toMatchObject({ auth_method: '', auth_header: null, auth_secret_id: null });
});
