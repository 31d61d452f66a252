import { expect, test, type Locator, type Page } from '@playwright/test';
import { seriousAxeFindings } from './axe';
import { choose, createProject, signIn, unique } from './helpers';
import { gitRepo } from './repo';
import { shot } from './shots';

const H = { 'x-gantry-request': '1' };

/** A Bash template (with the key, repository and variable group it needs) made through the API. */
async function bashTemplate(page: Page, p: number, name: string, surveyVars: unknown[] = []): Promise<{ id: number }> {
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
    data: {
      name,
      app: 'bash',
      playbook: 'hook.sh',
      repository_id: repo.id,
      environment_id: env.id,
      survey_vars: surveyVars,
    },
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

test("an integration answers its template's typed parameters with their controls; extracted values still override", async ({
  page,
  request,
}) => {
  await signIn(page);
  const p = await createProject(page, unique('Hooks typed'));
  const survey = [
    {
      name: 'region',
      title: 'Region',
      type: 'enum',
      required: true,
      values: [
        { name: 'Europe', value: 'eu' },
        { name: 'United States', value: 'us' },
      ],
    },
    { name: 'replicas', title: 'Replicas', type: 'int', min: 1, max: 5 },
    { name: 'dry', title: 'Dry run', type: 'boolean' },
    { name: 'notes', title: 'Notes', type: 'text' },
    { name: 'token', title: 'Token', type: 'secret' },
  ];
  const tpl = await bashTemplate(page, p, 'Typed hook', survey);
  /** The text under a form field (its accessible description). */
  const help = (field: Locator) =>
    field.evaluate((el) =>
      (el.getAttribute('aria-describedby') ?? '')
        .split(' ')
        .map((id) => (id ? (document.getElementById(id)?.textContent ?? '') : ''))
        .join(' ')
        .trim(),
    );

  await page.goto(`/project/${p}/integrations`);
  await page.getByRole('button', { name: 'New integration' }).click();
  const dialog = page.getByRole('dialog');
  await dialog.getByRole('textbox', { name: 'Name' }).fill('Typed push');
  await choose(page, dialog.getByLabel('Template'), 'Typed hook');
  const answers = dialog.getByRole('group', { name: 'Parameters for each run' });
  // A secret is not asked: an integration's answers are stored in clear.
  await expect(answers.getByLabel('Token')).toHaveCount(0);
  await expect(answers).toContainText('Secret parameters are not stored with an integration');
  await choose(page, answers.getByRole('combobox', { name: 'Region' }), 'United States');
  const replicas = answers.getByRole('spinbutton', { name: 'Replicas' });
  await replicas.fill('9');
  await answers.getByRole('switch', { name: 'Dry run' }).check();
  await answers.getByRole('textbox', { name: 'Notes' }).fill('line one\nline two');
  const other = dialog.getByRole('textbox', { name: 'Other extra variables (JSON)' });
  await other.fill('{"stage": "prod"}');
  // A bad value is refused at its control, in the console's words, before anything is sent.
  await dialog.getByRole('button', { name: 'Create' }).click();
  await expect.poll(() => help(replicas)).toBe('Replicas must be at most 5');
  await shot(page, 'integration-parameters-errors');
  expect(await seriousAxeFindings(page, '[role="dialog"]')).toEqual([]);
  await page.setViewportSize({ width: 390, height: 844 });
  await expect.poll(() => page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  await shot(page, 'integration-parameters-phone');
  await page.setViewportSize({ width: 1366, height: 860 });
  // A secret parameter set in the other variables: the server refuses it, worded by the console.
  await replicas.fill('3');
  await other.fill('{"stage": "prod", "token": "t0ps3cret"}');
  await dialog.getByRole('button', { name: 'Create' }).click();
  await expect(dialog.getByRole('alert')).toHaveText('Token is a secret parameter: its answer cannot be stored here');
  await other.fill('{"stage": "prod"}');
  await dialog.getByRole('button', { name: 'Create' }).click();
  await expect(dialog).toHaveCount(0);

  const [saved] = (await (await page.request.get(`/api/project/${p}/integrations`)).json()) as {
    id: number;
    task_params: { environment?: string };
  }[];
  // Stored typed, with the other variables.
  expect(JSON.parse(saved!.task_params.environment ?? '{}')).toEqual({
    stage: 'prod',
    region: 'us',
    replicas: 3,
    dry: true,
    notes: 'line one\nline two',
  });

  // Reopened: every answer in its control, the other variables in the text.
  await page
    .getByRole('row', { name: /Typed push/ })
    .getByRole('link', { name: 'Typed push' })
    .click();
  await page.getByRole('button', { name: 'Edit integration' }).click();
  await expect(answers.getByRole('combobox', { name: 'Region' })).toHaveText('United States');
  await expect(replicas).toHaveValue('3');
  await expect(answers.getByRole('switch', { name: 'Dry run' })).toBeChecked();
  await expect(answers.getByRole('textbox', { name: 'Notes' })).toHaveValue('line one\nline two');
  await expect(other).toHaveValue('{"stage":"prod"}');
  await shot(page, 'integration-parameters-edit');

  // The template is changed meanwhile (at most 2 replicas): the server's refusal is shown at the control.
  const template = await (await page.request.get(`/api/project/${p}/templates/${tpl.id}`)).json();
  const put = await page.request.put(`/api/project/${p}/templates/${tpl.id}`, {
    data: { ...template, survey_vars: survey.map((v) => (v.name === 'replicas' ? { ...v, max: 2 } : v)) },
    headers: H,
  });
  expect(put.status()).toBeLessThan(300);
  const refusal = page.waitForResponse(
    (r) => r.request().method() === 'PUT' && r.url().endsWith(`/integrations/${saved!.id}`),
  );
  await dialog.getByRole('button', { name: 'Save' }).click();
  expect((await refusal).status()).toBe(400);
  await expect.poll(() => help(replicas)).toBe('Replicas must be at most 2');
  // Shown at the control only, not again atop the form.
  await expect(dialog.getByRole('alert')).toHaveCount(0);
  await replicas.fill('2');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(dialog).toHaveCount(0);

  // A value extracted from the delivery still overrides the stored answer.
  const values = await page.request.post(`/api/project/${p}/integrations/${saved!.id}/values`, {
    data: {
      name: 'replicas',
      value_source: 'body',
      body_data_type: 'json',
      key: 'replicas',
      variable_type: 'task',
      variable: 'replicas',
    },
    headers: H,
  });
  expect(values.status()).toBeLessThan(300);
  const alias = await (
    await page.request.post(`/api/project/${p}/integrations/${saved!.id}/aliases`, { headers: H })
  ).json();
  const url = /^https?:/.test(alias.url) ? alias.url : new URL(alias.url, page.url()).toString();
  expect((await request.post(url, { data: { replicas: 1 } })).status()).toBeLessThan(300);
  const tasks = async () =>
    (await (await page.request.get(`/api/project/${p}/tasks`)).json()) as { environment: string | null }[];
  await expect.poll(async () => (await tasks()).length).toBe(1);
  const [task] = await tasks();
  expect(JSON.parse(task!.environment ?? '{}')).toMatchObject({ stage: 'prod', region: 'us', replicas: 1, dry: true });
});
