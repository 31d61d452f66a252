import { expect, test, type Page } from '@playwright/test';
import { choose, createProject, signIn, unique } from './helpers';
import { shot } from './shots';

test.beforeEach(async ({ page }) => signIn(page));

const dialog = (page: Page) => page.getByRole('dialog');

async function newKey(page: Page, projectId: number, name: string, type: 'None' | 'Login with password' = 'None') {
  await page.goto(`/project/${projectId}/keys`);
  await page.getByRole('button', { name: 'New key' }).click();
  await dialog(page).getByRole('textbox', { name: 'Name', exact: true }).fill(name);
  await choose(page, dialog(page).getByLabel('Type'), type);
  if (type === 'Login with password') {
    await dialog(page).getByLabel('Login').fill('deploy');
    await dialog(page).getByLabel('Password').fill('s3cret');
  }
  await dialog(page).getByRole('button', { name: 'Create' }).click();
  await expect(page.getByRole('row', { name: new RegExp(name) })).toBeVisible();
}

test('keys: create, validate, edit with override, delete', async ({ page }) => {
  const p = await createProject(page, unique('Keys'));
  await page.getByRole('link', { name: 'Keys' }).click();
  await expect(page).toHaveURL(new RegExp(`/project/${p}/keys$`));
  await page.getByRole('button', { name: 'New key' }).click();
  await dialog(page).getByRole('button', { name: 'Create' }).click();
  await expect(dialog(page).getByText('Name is required')).toBeVisible();
  await dialog(page).getByRole('textbox', { name: 'Name', exact: true }).fill('deploy key');
  await choose(page, dialog(page).getByLabel('Type'), 'SSH key');
  await dialog(page).getByRole('button', { name: 'Create' }).click();
  await expect(dialog(page).getByText('Private key is required')).toBeVisible();
  await dialog(page).getByLabel('Private key').fill('not a key at all');
  await dialog(page).getByRole('button', { name: 'Create' }).click();
  await expect(dialog(page).getByRole('alert')).toHaveText('Private key is not a valid private key');
  await dialog(page).getByRole('button', { name: 'Cancel' }).click();

  await newKey(page, p, 'vault pass', 'Login with password');
  await expect(page.getByRole('row', { name: /vault pass/ })).toContainText('Login with password');
  await shot(page, 'keys');

  await page.getByRole('button', { name: 'Edit vault pass' }).click();
  // The API sends the login (not a secret) with the key; the password stays blank.
  await expect(dialog(page).getByLabel('Login')).toHaveValue('deploy');
  // The password is stored, not shown: Replace opens its field.
  await expect(dialog(page).getByLabel('Password')).toHaveCount(0);
  await dialog(page).getByRole('button', { name: 'Replace' }).click();
  await expect(dialog(page).getByLabel('Password')).toBeEnabled();
  await dialog(page).getByRole('button', { name: 'Save' }).click();
  await expect(dialog(page).getByText('Password is required')).toBeVisible();
  await dialog(page).getByRole('button', { name: 'Keep the stored secret' }).click();
  await dialog(page).getByRole('textbox', { name: 'Name', exact: true }).fill('vault password');
  await dialog(page).getByRole('button', { name: 'Save' }).click();
  await expect(page.getByRole('row', { name: /vault password/ })).toBeVisible();

  await page.getByRole('button', { name: 'Delete vault password' }).click();
  await dialog(page).getByRole('button', { name: 'Delete' }).click();
  await expect(page.getByRole('row', { name: /vault password/ })).toHaveCount(0);
});

test('repositories: create with URL rules, edit, and a key in use cannot be deleted', async ({ page }) => {
  const p = await createProject(page, unique('Repos'));
  await newKey(page, p, 'git key');
  await page.goto(`/project/${p}/repositories`);
  await page.getByRole('button', { name: 'New repository' }).click();
  await dialog(page).getByRole('textbox', { name: 'Name', exact: true }).fill('app');
  await dialog(page).getByLabel('URL or path').fill('ftp://example.com/repo');
  await choose(page, dialog(page).getByLabel('Access key'), 'git key');
  await dialog(page).getByRole('button', { name: 'Create' }).click();
  await expect(dialog(page).getByText('Incorrect URL')).toBeVisible();
  await dialog(page).getByLabel('URL or path').fill('/srv/git/app');
  await expect(dialog(page).getByLabel('Branch')).toHaveCount(0);
  await dialog(page).getByLabel('URL or path').fill('git@github.com:org/app.git');
  await dialog(page).getByLabel('Branch').fill('');
  await dialog(page).getByRole('button', { name: 'Create' }).click();
  await expect(dialog(page).getByText('Branch is required')).toBeVisible();
  await dialog(page).getByLabel('Branch').fill('main');
  await dialog(page).getByRole('button', { name: 'Create' }).click();
  const row = page.getByRole('row', { name: /app/ });
  await expect(row).toContainText('git@github.com:org/app.git');
  await expect(row).toContainText('main');
  await expect(row).toContainText('git key');
  await shot(page, 'repositories');

  await page.getByRole('button', { name: 'Edit app' }).click();
  await dialog(page).getByLabel('Branch').fill('develop');
  await dialog(page).getByRole('button', { name: 'Save' }).click();
  await expect(row).toContainText('develop');

  // The key is used by the repository: the references dialog shows instead of a delete.
  await page.goto(`/project/${p}/keys`);
  await page.getByRole('button', { name: 'Delete git key' }).click();
  await expect(dialog(page)).toContainText("Can't delete the key");
  await expect(dialog(page).getByRole('link', { name: 'app' })).toHaveAttribute('href', new RegExp(`/project/${p}/repositories/\\d+$`));
  await expect(dialog(page).getByRole('button', { name: 'Delete' })).toHaveCount(0);
  await shot(page, 'references');
  await dialog(page).getByRole('button', { name: 'Close' }).click();
  await expect(page.getByRole('row', { name: /git key/ })).toBeVisible();

  await page.goto(`/project/${p}/repositories`);
  await page.getByRole('button', { name: 'Delete app' }).click();
  await dialog(page).getByRole('button', { name: 'Delete' }).click();
  await expect(page.getByText('No repositories yet')).toBeVisible();
});

test('inventories: static INI in the editor, file path rules, edit and delete', async ({ page }) => {
  const p = await createProject(page, unique('Inventory'));
  await newKey(page, p, 'ssh user');
  await page.goto(`/project/${p}/inventory`);
  await page.getByRole('button', { name: 'New inventory' }).click();
  await page.getByRole('menuitem', { name: /Ansible inventory/ }).click();
  await dialog(page).getByRole('textbox', { name: 'Name', exact: true }).fill('production');
  // Credentials are optional (without them ansible connects with none); this inventory has a key.
  await choose(page, dialog(page).getByLabel('User credentials'), 'ssh user');
  await dialog(page).locator('.cm-content').fill('[web]\nweb1.example.com\n');
  await dialog(page).getByRole('button', { name: 'Create' }).click();
  await expect(page.getByRole('row', { name: /production/ })).toContainText('Static (INI)');
  await shot(page, 'inventory');

  await page.getByRole('button', { name: 'New inventory' }).click();
  await page.getByRole('menuitem', { name: /Ansible inventory/ }).click();
  await dialog(page).getByRole('textbox', { name: 'Name', exact: true }).fill('from repo');
  await choose(page, dialog(page).getByLabel('Type'), 'File in a repository');
  await choose(page, dialog(page).getByLabel('User credentials'), 'ssh user');
  await dialog(page).getByLabel('Path').fill('../../etc/passwd');
  await dialog(page).getByRole('button', { name: 'Create' }).click();
  await expect(dialog(page).getByText('Path must stay inside the repository')).toBeVisible();
  await dialog(page).getByLabel('Path').fill('inventories/prod.ini');
  await dialog(page).getByRole('button', { name: 'Create' }).click();
  await expect(page.getByRole('row', { name: /from repo/ })).toContainText('inventories/prod.ini');

  await page.getByRole('button', { name: 'Edit production' }).click();
  await expect(dialog(page).locator('.cm-content')).toContainText('web1.example.com');
  await dialog(page).getByRole('textbox', { name: 'Name', exact: true }).fill('prod');
  await dialog(page).getByRole('button', { name: 'Save' }).click();
  await expect(page.getByRole('row', { name: /prod/ }).first()).toBeVisible();
  await page.getByRole('button', { name: 'Delete from repo' }).click();
  await dialog(page).getByRole('button', { name: 'Delete' }).click();
  await expect(page.getByRole('row', { name: /from repo/ })).toHaveCount(0);
});

test('variable groups: table and JSON modes, secrets stay write-only, edit and delete', async ({ page }) => {
  const p = await createProject(page, unique('Vars'));
  await page.goto(`/project/${p}/environment`);
  await page.getByRole('button', { name: 'New group' }).click();
  await dialog(page).getByRole('textbox', { name: 'Name', exact: true }).fill('production');
  const extra = dialog(page).getByTestId('extra-vars');
  await extra.getByRole('button', { name: 'Add variable' }).click();
  await extra.getByLabel('Name').fill('region');
  await extra.getByLabel('Value').fill('eu-west');
  await extra.getByRole('button', { name: 'JSON' }).click();
  await expect(extra.locator('.cm-content')).toContainText('"region": "eu-west"');
  // Invalid JSON keeps JSON mode and shows the parse error.
  await extra.locator('.cm-content').fill('{"region": ');
  await extra.getByRole('button', { name: 'Table' }).click();
  await expect(extra.getByRole('alert')).toContainText('Invalid JSON');
  await expect(extra.locator('.cm-content')).toBeVisible();
  // A nested value makes the table unavailable.
  await extra.locator('.cm-content').fill('{"region": "eu", "tags": {"team": "ops"}}');
  await expect(extra.getByText('The JSON is too complex to show as a table: a value is an object.')).toBeVisible();
  await expect(extra.getByRole('button', { name: 'Table' })).toBeDisabled();
  await dialog(page).getByRole('button', { name: 'Add secret' }).click();
  await dialog(page).getByLabel('Name', { exact: true }).last().fill('API_TOKEN');
  await dialog(page).getByLabel('Value', { exact: true }).last().fill('tok-123');
  await shot(page, 'variable-group');
  await dialog(page).getByRole('button', { name: 'Create' }).click();
  await expect(page.getByRole('row', { name: /production/ })).toBeVisible();

  const envs = await (await page.request.get(`/api/project/${p}/environment`)).json();
  expect(envs[0].secrets).toEqual([{ id: expect.any(Number), name: 'API_TOKEN', type: 'env' }]);
  expect(JSON.stringify(envs)).not.toContain('tok-123');
  expect(JSON.parse(envs[0].json)).toEqual({ region: 'eu', tags: { team: 'ops' } });

  await page.getByRole('button', { name: 'Edit production' }).click();
  await expect(dialog(page).getByTestId('extra-vars').getByRole('button', { name: 'Table' })).toBeDisabled();
  await dialog(page).getByRole('button', { name: 'Remove secret' }).click();
  await dialog(page).getByRole('button', { name: 'Save' }).click();
  await expect(dialog(page)).toHaveCount(0);
  expect((await (await page.request.get(`/api/project/${p}/environment`)).json())[0].secrets).toEqual([]);
  await page.getByRole('button', { name: 'Delete production' }).click();
  await dialog(page).getByRole('button', { name: 'Delete' }).click();
  await expect(page.getByText('No variable groups yet')).toBeVisible();
});

test('team: add a member, change their role, remove them; activity lists it', async ({ page }) => {
  const login = `tm${Date.now().toString(36)}`;
  await page.request.post('/api/users', { data: { name: `Team ${login}`, username: login, email: `${login}@example.com`, password: 'p' }, headers: { 'x-gantry-request': '1' } });
  const p = await createProject(page, unique('Team'));
  await page.getByRole('link', { name: 'Team' }).click();
  await expect(page.getByRole('button', { name: 'Leave project' })).toBeDisabled();
  await page.getByRole('button', { name: 'Add member' }).click();
  await dialog(page).getByLabel('User').fill(login);
  await page.getByRole('option', { name: new RegExp(login) }).click();
  await dialog(page).getByRole('button', { name: 'Add' }).click();
  const row = page.getByRole('row', { name: new RegExp(login) });
  await expect(row).toContainText('Task runner');
  await page.getByLabel(`Role of ${login}`).click();
  await page.getByRole('option', { name: 'Manager' }).click();
  await expect(row).toContainText('Manager');
  await expect.poll(async () => (await (await page.request.get(`/api/project/${p}/users`)).json()).find((u: { username: string }) => u.username === login)?.role).toBe('manager');
  await shot(page, 'team');
  await page.getByRole('button', { name: `Remove ${login}` }).click();
  await dialog(page).getByRole('button', { name: 'Remove' }).click();
  await expect(row).toHaveCount(0);

  await page.goto(`/project/${p}/activity`);
  await expect(page.getByRole('row', { name: new RegExp(`Role of ${login} changed to manager`) })).toBeVisible();
  await expect(page.getByRole('row', { name: new RegExp(`User ${login} removed from the project`) })).toBeVisible();
});
