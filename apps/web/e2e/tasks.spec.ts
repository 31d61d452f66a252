import { expect, test, type APIRequestContext, type Page } from '@playwright/test';
import { createProject, signIn, unique } from './helpers';
import { gitRepo } from './repo';
import { shot } from './shots';

const H = { 'x-gantry-request': '1' };

/** Key, repository and variable group for a project, through the API. */
async function resources(request: APIRequestContext, p: number, repoPath: string) {
  const key = await (await request.post(`/api/project/${p}/keys`, { data: { name: 'none', type: 'none' }, headers: H })).json();
  const repo = await (await request.post(`/api/project/${p}/repositories`, { data: { name: 'scripts', git_url: repoPath, ssh_key_id: key.id }, headers: H })).json();
  const env = await (await request.post(`/api/project/${p}/environment`, { data: { name: 'defaults', json: '{"who": "gantry"}' }, headers: H })).json();
  return { repositoryId: repo.id as number, environmentId: env.id as number };
}

async function pick(page: Page, label: string, option: string) {
  await page.getByRole('dialog').getByRole('combobox', { name: label }).click();
  await page.getByRole('option', { name: option, exact: true }).click();
}

test.beforeEach(async ({ page }) => signIn(page));

test('create a bash template in the form, run it and watch its lines arrive', async ({ page }) => {
  const p = await createProject(page, unique('Run'));
  const repo = gitRepo({ 'hello.sh': 'echo "hello from $who"\nfor i in 1 2 3; do echo "step $i"; sleep 1; done\necho done\n' });
  await resources(page.request, p, repo);
  await page.getByRole('link', { name: 'Task Templates' }).click();
  await page.getByRole('button', { name: 'New template' }).click();
  const dialog = page.getByRole('dialog');
  // The dialog opens ready to type, and Enter submits it.
  await expect(dialog.getByLabel('Name').first()).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(dialog.getByText('Name is required', { exact: true })).toBeVisible();
  await dialog.getByLabel('Name').first().fill('Say hello');
  await pick(page, 'App', 'Bash Script');
  await dialog.getByLabel('Script filename').fill('hello.sh');
  await pick(page, 'Repository', 'scripts');
  await pick(page, 'Variable group', 'defaults');
  const extraVars = dialog.getByRole('checkbox', { name: 'Allow extra variables in task (beyond the survey)' });
  await expect(extraVars).not.toBeChecked();
  await extraVars.check();
  await shot(page, 'template-form');
  await dialog.getByRole('button', { name: 'Create' }).click();
  await expect(page).toHaveURL(new RegExp(`/project/${p}/templates/\\d+/tasks$`));
  await expect(page.getByRole('heading', { name: 'Say hello' })).toBeVisible();
  const saved = (await (await page.request.get(`/api/project/${p}/templates`)).json()) as Array<{ name: string; allow_extra_vars_in_task: boolean }>;
  expect(saved.find((x) => x.name === 'Say hello')?.allow_extra_vars_in_task).toBe(true);

  await page.getByRole('button', { name: 'Run', exact: true }).click();
  await expect(page.getByRole('dialog').getByLabel('Message')).toBeFocused();
  await page.keyboard.type('by keyboard');
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(/\?t=\d+/);
  const log = page.getByTestId('task-log');
  await expect(log).toContainText('hello from gantry');
  await expect(log).toContainText('step 1');
  await expect(page.getByRole('dialog').getByTestId('task-status')).toHaveAttribute('data-status', 'running');
  await expect(log).toContainText('done');
  await expect(page.getByRole('dialog').getByTestId('task-status')).toHaveAttribute('data-status', 'success');
  await expect(page.getByRole('link', { name: 'Raw log' })).toHaveAttribute('href', /\/raw_output$/);
  await shot(page, 'task-log');
  await page.getByRole('button', { name: 'Close' }).click();
  await expect(page).not.toHaveURL(/\?t=/);
  await expect(page.getByRole('row', { name: /Success/ })).toBeVisible();

  await page.goto(`/project/${p}/history`);
  await expect(page.getByRole('row', { name: /Say hello/ })).toContainText('Success');
  await shot(page, 'history');
});

test('stop a long task from its log', async ({ page }) => {
  const p = await createProject(page, unique('Stop'));
  const r = await resources(page.request, p, gitRepo({ 'long.sh': 'echo started\nsleep 120\necho never\n' }));
  const tpl = await (await page.request.post(`/api/project/${p}/templates`, { data: { name: 'Long job', app: 'bash', playbook: 'long.sh', repository_id: r.repositoryId, environment_id: r.environmentId }, headers: H })).json();
  await page.goto(`/project/${p}/templates/${tpl.id}`);
  await page.getByRole('button', { name: 'Run', exact: true }).click();
  await page.getByRole('dialog').getByRole('textbox', { name: 'Message' }).fill('please stop me');
  await page.getByRole('dialog').getByRole('button', { name: 'Run', exact: true }).click();
  await expect(page.getByTestId('task-log')).toContainText('started');
  await page.getByRole('dialog').getByRole('button', { name: 'Stop' }).click();
  await expect(page.getByRole('dialog').getByTestId('task-status')).toHaveAttribute('data-status', 'stopped');
  await expect(page.getByTestId('task-log')).not.toContainText('never');
  await expect(page.getByRole('dialog')).toContainText('please stop me');
});

test('confirm a terraform plan', async ({ page }) => {
  const p = await createProject(page, unique('Terraform'));
  const repo = gitRepo({ 'main.tf': 'resource "terraform_data" "web" {\n  input = "e2e"\n}\noutput "value" {\n  value = terraform_data.web.output\n}\n' });
  const r = await resources(page.request, p, repo);
  const tpl = await (await page.request.post(`/api/project/${p}/templates`, { data: { name: 'Infra', app: 'terraform', repository_id: r.repositoryId, environment_id: r.environmentId }, headers: H })).json();
  await page.goto(`/project/${p}/templates/${tpl.id}`);
  await page.getByRole('button', { name: 'Run', exact: true }).click();
  await expect(page.getByRole('dialog').getByLabel('Message')).toBeFocused();
  await page.keyboard.type('by keyboard');
  await page.keyboard.press('Enter');
  const status = page.getByRole('dialog').getByTestId('task-status');
  await expect(status).toHaveAttribute('data-status', 'waiting_confirmation', { timeout: 30_000 });
  await expect(page.getByTestId('task-log')).toContainText('Plan: 1 to add');
  await shot(page, 'terraform-confirm');
  await page.getByRole('button', { name: 'Confirm' }).click();
  // Confirm shows the plan's counts first (terraform-plan.spec.ts walks that dialog).
  const apply = page.getByRole('dialog', { name: 'Apply this plan?' });
  await expect(apply).toContainText('1 to add');
  await apply.getByRole('button', { name: 'Confirm and apply' }).click();
  await expect(apply).toBeHidden();
  await expect(status).toHaveAttribute('data-status', 'success', { timeout: 30_000 });
  await expect(page.getByTestId('task-log')).toContainText('Apply complete!');
  await page.getByRole('button', { name: 'Close' }).click();
  await page.getByRole('tab', { name: 'State' }).click();
  await expect(page.getByText('terraform_data.web')).toBeVisible();
});

test('views: add, rename and remove template tabs', async ({ page }) => {
  const p = await createProject(page, unique('Views'));
  await page.goto(`/project/${p}/templates`);
  await page.getByRole('button', { name: 'Edit views' }).click();
  const dialog = page.getByRole('dialog');
  await dialog.getByRole('button', { name: 'Add view' }).click();
  await dialog.getByRole('textbox', { name: 'View title' }).last().fill('Deploys');
  await dialog.getByRole('button', { name: 'Add view' }).click();
  await expect(dialog.getByRole('button', { name: 'Save' })).toBeDisabled();
  await dialog.getByRole('textbox', { name: 'View title' }).last().fill('Ops');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByRole('tab', { name: 'Deploys' })).toBeVisible();
  await expect(page.getByRole('tab', { name: 'Ops' })).toBeVisible();
  await page.getByRole('button', { name: 'Edit views' }).click();
  await dialog.getByRole('button', { name: 'Remove Deploys' }).click();
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByRole('tab', { name: 'Deploys' })).toHaveCount(0);
  const views = await (await page.request.get(`/api/project/${p}/views`)).json();
  expect(views.map((v: { title: string }) => v.title)).toEqual(['Ops']);
});

test('a manager may run a template with debug even when the template does not allow it', async ({ page }) => {
  const p = await createProject(page, unique('Debug'));
  const repo = gitRepo({ 'site.yml': '- hosts: all\n  gather_facts: false\n  tasks:\n    - debug: msg="hello"\n' });
  const r = await resources(page.request, p, repo);
  const inv = await (await page.request.post(`/api/project/${p}/inventory`, { data: { name: 'local', type: 'static', inventory: 'localhost ansible_connection=local' }, headers: H })).json();
  // As Semaphore's console makes templates: allow_debug is not set.
  const tpl = await (
    await page.request.post(`/api/project/${p}/templates`, {
      data: { name: 'Verbose', app: 'ansible', playbook: 'site.yml', repository_id: r.repositoryId, environment_id: r.environmentId, inventory_id: inv.id },
      headers: H,
    })
  ).json();
  expect(tpl.task_params.allow_debug ?? false).toBe(false);
  await page.goto(`/project/${p}/templates/${tpl.id}/tasks`);
  await page.getByRole('button', { name: 'Run', exact: true }).click();
  const dialog = page.getByRole('dialog');
  await dialog.getByRole('checkbox', { name: 'Debug' }).check();
  await dialog.getByRole('button', { name: 'Run', exact: true }).click();
  await expect(page).toHaveURL(/\?t=\d+/);
  const log = page.getByTestId('task-log');
  await expect(page.getByRole('dialog').getByTestId('task-status')).toHaveAttribute('data-status', 'success', { timeout: 60_000 });
  // -vvvv: Ansible says which configuration file it read, which it does not at normal verbosity.
  await expect(log).toContainText('config file');
  await expect(log).not.toContainText('Debug was not enabled');
});
