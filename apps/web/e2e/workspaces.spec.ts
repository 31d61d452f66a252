import { expect, test } from '@playwright/test';
import { createProject, signIn, unique } from './helpers';
import { gitRepo } from './repo';
import { shot } from './shots';

const H = { 'x-gantry-request': '1' };
const MAIN_TF =
  'resource "terraform_data" "web" {\n  input = "e2e"\n}\noutput "pw" {\n  value     = "s3cret-canary"\n  sensitive = true\n}\n';

test.beforeEach(async ({ page }) => signIn(page));

test('terraform workspaces: create, make default, run, read a redacted state version', async ({ page }) => {
  const p = await createProject(page, unique('Workspaces'));
  const key = await (
    await page.request.post(`/api/project/${p}/keys`, { data: { name: 'none', type: 'none' }, headers: H })
  ).json();
  const repo = await (
    await page.request.post(`/api/project/${p}/repositories`, {
      data: { name: 'infra', git_url: gitRepo({ 'main.tf': MAIN_TF }), ssh_key_id: key.id },
      headers: H,
    })
  ).json();
  const env = await (
    await page.request.post(`/api/project/${p}/environment`, { data: { name: 'defaults', json: '{}' }, headers: H })
  ).json();
  const tpl = await (
    await page.request.post(`/api/project/${p}/templates`, {
      data: {
        name: 'Infra',
        app: 'terraform',
        repository_id: repo.id,
        environment_id: env.id,
        task_params: { auto_approve: true },
      },
      headers: H,
    })
  ).json();

  await page.goto(`/project/${p}/templates/${tpl.id}/state`);
  await expect(page.getByText('No workspaces yet')).toBeVisible();
  await page.getByRole('button', { name: 'New workspace' }).click();
  const dialog = page.getByRole('dialog');
  await dialog.getByRole('textbox', { name: 'Name' }).fill('staging');
  await dialog.getByRole('button', { name: 'Create' }).click();
  await expect(dialog.getByText('Key is required')).toBeVisible();
  await dialog.getByLabel('SSH key').click();
  await page.getByRole('option', { name: 'none', exact: true }).click();
  await dialog.getByRole('button', { name: 'Create' }).click();
  await expect(dialog).toBeHidden();

  const table = page.getByRole('table', { name: 'Workspaces' });
  await expect(table.getByRole('row', { name: /staging/ })).toBeVisible();
  await table.getByRole('button', { name: 'Set default' }).click();
  await expect(table.getByText('default', { exact: true })).toBeVisible();
  await expect(page.getByText('No state available.').first()).toBeVisible();

  await page.getByRole('button', { name: 'Run', exact: true }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Run', exact: true }).click();
  const status = page.getByRole('dialog').getByTestId('task-status');
  await expect(status).toHaveAttribute('data-status', 'success', { timeout: 30_000 });
  await expect(page.getByTestId('task-log')).toContainText('Apply complete!');
  await page.getByRole('button', { name: 'Close' }).click();

  const versions = page.getByRole('table', { name: 'State versions' });
  await expect(versions.getByRole('row')).toHaveCount(2);
  await expect(versions.getByRole('link', { name: /#\d+/ })).toBeVisible();
  await versions.getByRole('button', { name: 'View' }).click();
  const state = page.getByRole('dialog');
  await expect(state).toContainText('"(sensitive)"');
  await expect(state).toContainText('terraform_data');
  await expect(state).not.toContainText('s3cret-canary');
  await page.waitForTimeout(500); // let the dialog finish fading in for the picture
  await shot(page, 'workspace-state');
  await page.screenshot({ path: '/tmp/workspace-state.png' });
});
