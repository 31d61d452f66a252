import { expect, test } from '@playwright/test';
import { signIn, unique } from './helpers';
import { gitRepo } from './repo';
import { shot } from './shots';

const H = { 'x-gantry-request': '1' };
const PASSWORD = 'e2e-backend-pw';
const MAIN_TF = 'resource "terraform_data" "web" {\n  count = 1\n  input = "e2e-${count.index}"\n}\n';

/** A state as terraform writes it, with `n` instances of terraform_data.web. */
const state = (serial: number, n: number) =>
  JSON.stringify({
    version: 4,
    terraform_version: '1.11.4',
    serial,
    lineage: 'e2e-lineage',
    outputs: {},
    resources: [
      {
        mode: 'managed',
        type: 'terraform_data',
        name: 'web',
        provider: 'provider["terraform.io/builtin/terraform"]',
        instances: Array.from({ length: n }, (_, i) => ({
          index_key: i,
          schema_version: 0,
          attributes: { id: `x${i}` },
        })),
      },
    ],
  });

test.beforeEach(async ({ page }) => signIn(page));

test('terraform backend: turn it on, add an alias, copy it, paste-ready block, run, compare versions, rotate', async ({
  page,
}) => {
  const p = (
    (await (await page.request.post('/api/projects', { data: { name: unique('Backend') }, headers: H })).json()) as {
      id: number;
    }
  ).id;
  const post = async <T>(url: string, data: unknown): Promise<T> => {
    const res = await page.request.post(url, { data, headers: H });
    expect(res.ok(), await res.text()).toBe(true);
    return (await res.json()) as T;
  };
  const key = await post<{ id: number }>(`/api/project/${p}/keys`, {
    name: 'ci-bot login',
    type: 'login_password',
    login_password: { login: 'ci-bot', password: PASSWORD },
  });
  const repo = await post<{ id: number }>(`/api/project/${p}/repositories`, {
    name: 'infra',
    git_url: gitRepo({ 'main.tf': MAIN_TF }),
    ssh_key_id: key.id,
  });
  const env = await post<{ id: number }>(`/api/project/${p}/environment`, { name: 'defaults', json: '{}' });
  const tpl = await post<{ id: number }>(`/api/project/${p}/templates`, {
    name: 'Infra',
    app: 'terraform',
    repository_id: repo.id,
    environment_id: env.id,
    task_params: { auto_approve: true },
  });
  const ws = await post<{ id: number }>(`/api/project/${p}/inventory`, {
    name: 'production',
    type: 'terraform-workspace',
    inventory: 'production',
    ssh_key_id: key.id,
  });
  await page.request.post(`/api/project/${p}/templates/${tpl.id}/inventory/${ws.id}/set_default`, { headers: H });

  await page.goto(`/project/${p}/templates/${tpl.id}/state`);
  const section = page.getByTestId('workspace-backend');
  await expect(section.getByText('HTTP state backend')).toBeVisible();
  const toggle = section.getByRole('switch', { name: "Tasks keep this workspace's state in Gantry" });
  await expect(toggle).not.toBeChecked();
  await toggle.click();
  await expect(toggle).toBeChecked();
  await expect(section.getByText('No aliases yet')).toBeVisible();

  // The "alias edit" dialog: the key is required and only login/password keys are offered.
  await section.getByRole('button', { name: 'Add alias' }).click();
  const dialog = page.getByRole('dialog', { name: 'New alias' });
  await dialog.getByRole('button', { name: 'Create' }).click();
  await expect(dialog.getByText('Auth key is required')).toBeVisible();
  await dialog.getByLabel('Auth key').click();
  await page.getByRole('option', { name: 'ci-bot login' }).click();
  await dialog.getByRole('button', { name: 'Create' }).click();
  await expect(dialog).toBeHidden();

  const url = section.getByTestId('terraform-alias-url');
  await expect(url).toHaveText(/^http:\/\/127\.0\.0\.1:\d+\/api\/terraform\/[a-z0-9]{32}$/);
  const address = (await url.textContent())!;
  await section.getByRole('button', { name: 'Copy alias URL' }).click();
  await expect(page.getByText('The alias URL has been copied to the clipboard.')).toBeVisible();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(address);
  const block = section.getByTestId('terraform-backend-block');
  await expect(block).toContainText(`address        = "${address}"`);
  await expect(block).toContainText('lock_method    = "LOCK"');
  await expect(block).toContainText('username       = "ci-bot"');
  await expect(section).not.toContainText(PASSWORD);

  // A task keeps its state in the backend...
  await page.getByRole('button', { name: 'Run', exact: true }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Run', exact: true }).click();
  const status = page.getByRole('dialog').getByTestId('task-status');
  await expect(status).toHaveAttribute('data-status', 'success', { timeout: 30_000 });
  await expect(page.getByTestId('task-log')).toContainText("State: Gantry's HTTP state backend");
  await page.getByRole('button', { name: 'Close' }).click();

  // ...and someone on a laptop writes the next version through the alias.
  const auth = { authorization: `Basic ${Buffer.from(`ci-bot:${PASSWORD}`).toString('base64')}` };
  const current = JSON.parse(await (await page.request.get(address, { headers: auth })).text()) as { serial: number };
  const pushed = await page.request.post(address, {
    headers: { ...auth, 'content-type': 'application/json' },
    data: state(current.serial + 1, 3),
  });
  expect(pushed.status()).toBe(200);
  await page.reload();

  const versions = page.getByRole('table', { name: 'State versions' });
  await expect(versions.getByRole('row')).toHaveCount(3);
  await expect(versions.getByRole('row').nth(1)).toContainText(/alias [a-z0-9]{6}…/);
  await expect(versions.getByRole('row').nth(2)).toContainText(/#\d+/);
  await page.getByRole('button', { name: 'Compare' }).click();
  const diff = page.getByRole('dialog', { name: 'Compare state versions' });
  await expect(diff.getByTestId('state-diff')).toContainText('2 added, 1 changed, 0 removed; 0 outputs changed');
  await expect(diff.getByTestId('state-diff')).toContainText('+ terraform_data.web[2]');
  await page.waitForTimeout(400); // let the dialog finish fading in for the picture
  await shot(page, 'terraform-state-diff');
  await diff.getByRole('button', { name: 'Close' }).click();

  await page.waitForTimeout(400);
  await shot(page, 'terraform-backend');
  await page.screenshot({ path: '/tmp/terraform-backend.png', fullPage: true });

  // Rotating stops the old address at once.
  await section.getByRole('button', { name: 'Rotate' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Rotate' }).click();
  await expect(page.getByText('The alias has a new address; the old one no longer works.')).toBeVisible();
  await expect(url).not.toHaveText(address);
  expect((await page.request.get(address, { headers: auth })).status()).toBe(401);
  expect((await page.request.get((await url.textContent())!, { headers: auth })).status()).toBe(200);
});

test('terraform backend: a manager turns it on but sees no aliases, which answer the raw state; an owner adds one', async ({
  page,
  browser,
}) => {
  const post = async <T>(url: string, data?: unknown): Promise<T> => {
    const res = await page.request.post(url, { data, headers: H });
    expect(res.ok(), await res.text()).toBe(true);
    return (await res.json().catch(() => null)) as T;
  };
  const p = (await post<{ id: number }>('/api/projects', { name: unique('Aliases') })).id;
  const key = await post<{ id: number }>(`/api/project/${p}/keys`, {
    name: 'ci-bot login',
    type: 'login_password',
    login_password: { login: 'ci-bot', password: PASSWORD },
  });
  const repo = await post<{ id: number }>(`/api/project/${p}/repositories`, {
    name: 'infra',
    git_url: gitRepo({ 'main.tf': MAIN_TF }),
    ssh_key_id: key.id,
  });
  const env = await post<{ id: number }>(`/api/project/${p}/environment`, { name: 'defaults', json: '{}' });
  const tpl = await post<{ id: number }>(`/api/project/${p}/templates`, {
    name: 'Infra',
    app: 'terraform',
    repository_id: repo.id,
    environment_id: env.id,
  });
  const ws = await post<{ id: number }>(`/api/project/${p}/inventory`, {
    name: 'production',
    type: 'terraform-workspace',
    inventory: 'production',
    ssh_key_id: key.id,
  });
  await post(`/api/project/${p}/templates/${tpl.id}/inventory/${ws.id}/set_default`);
  const member = async (role: string) => {
    const login = `${role.slice(0, 2)}${Date.now().toString(36)}`;
    const user = await post<{ id: number }>('/api/users', {
      name: `${role} ${login}`,
      username: login,
      email: `${login}@example.com`,
      password: 'p',
    });
    await post(`/api/project/${p}/users`, { user_id: user.id, role });
    const context = await browser.newContext();
    const other = await context.newPage();
    await signIn(other, login, 'p');
    await other.goto(`/project/${p}/templates/${tpl.id}/state`);
    return { context, page: other };
  };

  const manager = await member('manager');
  const section = manager.page.getByTestId('workspace-backend');
  const toggle = section.getByRole('switch', { name: "Tasks keep this workspace's state in Gantry" });
  await expect(toggle).toBeEnabled();
  await toggle.click();
  await expect(toggle).toBeChecked();
  await expect(section.getByTestId('terraform-aliases-owners-only')).toHaveText(
    'Aliases answer the raw state, sensitive values included: only project owners see and add them.',
  );
  await expect(section.getByRole('button', { name: 'Add alias' })).toHaveCount(0);
  await manager.context.close();

  const owner = await member('owner');
  const ownerSection = owner.page.getByTestId('workspace-backend');
  await expect(ownerSection.getByTestId('terraform-aliases-owners-only')).toHaveCount(0);
  await ownerSection.getByRole('button', { name: 'Add alias' }).click();
  const dialog = owner.page.getByRole('dialog', { name: 'New alias' });
  await dialog.getByLabel('Auth key').click();
  await owner.page.getByRole('option', { name: 'ci-bot login' }).click();
  await dialog.getByRole('button', { name: 'Create' }).click();
  await expect(ownerSection.getByTestId('terraform-alias-url')).toHaveText(/\/api\/terraform\/[a-z0-9]{32}$/);
  await owner.context.close();
});
