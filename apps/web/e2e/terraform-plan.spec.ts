import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { seriousAxeFindings } from './axe';
import { createProject, signIn, unique } from './helpers';
import { gitRepo } from './repo';

const H = { 'x-gantry-request': '1' };
const SHOTS = '/tmp/forms';
const TWO =
  'resource "terraform_data" "web" {\n  input = "e2e"\n}\nresource "terraform_data" "db" {\n  input = { size = 1 }\n}\noutput "web" {\n  value = terraform_data.web.output\n}\n';
const ONE = 'resource "terraform_data" "web" {\n  input = "e2e"\n}\n';

/** Commits new contents of main.tf to the local repository (a change nobody applied yet). */
function commit(repo: string, mainTf: string): void {
  const env = {
    ...process.env,
    GIT_AUTHOR_NAME: 'e2e',
    GIT_AUTHOR_EMAIL: 'e@e',
    GIT_COMMITTER_NAME: 'e2e',
    GIT_COMMITTER_EMAIL: 'e@e',
  };
  fs.writeFileSync(path.join(repo, 'main.tf'), mainTf);
  execFileSync('git', ['commit', '-qam', 'change'], { cwd: repo, env });
}

async function snap(page: Page, name: string): Promise<void> {
  fs.mkdirSync(SHOTS, { recursive: true });
  await page.waitForTimeout(400); // a dialog or tooltip finishes fading in
  await page.screenshot({ path: `${SHOTS}/${name}.png` });
}

test.beforeEach(async ({ page }) => signIn(page));

test('terraform plan: table, diff, confirm with counts, policy block, drift check and its schedule', async ({
  page,
}) => {
  test.setTimeout(360_000);
  const p = await createProject(page, unique('Plans'));
  const key = await (
    await page.request.post(`/api/project/${p}/keys`, { data: { name: 'none', type: 'none' }, headers: H })
  ).json();
  const repoDir = gitRepo({ 'main.tf': TWO });
  const repo = await (
    await page.request.post(`/api/project/${p}/repositories`, {
      data: { name: 'infra', git_url: repoDir, ssh_key_id: key.id },
      headers: H,
    })
  ).json();
  const env = await (
    await page.request.post(`/api/project/${p}/environment`, { data: { name: 'defaults', json: '{}' }, headers: H })
  ).json();
  const tpl = await (
    await page.request.post(`/api/project/${p}/templates`, {
      data: { name: 'Infra', app: 'terraform', repository_id: repo.id, environment_id: env.id, task_params: {} },
      headers: H,
    })
  ).json();

  // Its default workspace (an inventory of the project).
  const ws = await (
    await page.request.post(`/api/project/${p}/inventory`, {
      data: { name: 'staging', type: 'terraform-workspace', inventory: 'staging', ssh_key_id: key.id },
      headers: H,
    })
  ).json();
  for (const action of ['attach', 'set_default'])
    expect(
      (
        await page.request.post(`/api/project/${p}/templates/${tpl.id}/inventory/${ws.id}/${action}`, { headers: H })
      ).ok(),
    ).toBe(true);

  // A second workspace of the template: a drift check may plan either.
  const prod = await (
    await page.request.post(`/api/project/${p}/inventory`, {
      data: { name: 'prod', type: 'terraform-workspace', inventory: 'prod', ssh_key_id: key.id },
      headers: H,
    })
  ).json();
  expect(
    (await page.request.post(`/api/project/${p}/templates/${tpl.id}/inventory/${prod.id}/attach`, { headers: H })).ok(),
  ).toBe(true);

  // The template page: no drift check yet.
  await page.goto(`/project/${p}/templates/${tpl.id}/tasks`);
  await expect(page.getByTestId('drift-badge')).toHaveAttribute('data-status', 'unknown');
  await expect(page.getByTestId('drift-badge')).toContainText('Not checked');

  // Run: the plan waits for confirmation and the log dialog shows it.
  await page.getByRole('button', { name: 'Run', exact: true }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Run', exact: true }).click();
  const log = page.getByRole('dialog');
  await expect(log.getByTestId('task-status')).toHaveAttribute('data-status', 'waiting_confirmation', {
    timeout: 60_000,
  });
  await expect(log.getByRole('tab', { name: 'Plan' })).toHaveAttribute('aria-selected', 'true');
  const plan = log.getByTestId('plan-view');
  await expect(plan.getByTestId('plan-counts')).toContainText('2 to add');
  await expect(plan.getByTestId('plan-counts')).toContainText('0 to destroy');
  const resources = plan.getByRole('table', { name: 'Planned resource changes' });
  await expect(resources.getByRole('row')).toHaveCount(3);
  const web = resources.getByRole('button', { name: 'terraform_data.web' });
  await expect(web).toHaveAttribute('aria-expanded', 'false');
  await web.focus();
  await page.keyboard.press('Enter');
  await expect(web).toHaveAttribute('aria-expanded', 'true');
  const diff = plan.getByRole('table', { name: 'Attribute changes of terraform_data.web' });
  await expect(diff.getByRole('row', { name: /^input/ })).toContainText('"e2e"');
  await expect(diff).toContainText('(known after apply)');
  await expect(plan).toContainText('Changed outputs');
  expect(await seriousAxeFindings(page, '[role="dialog"]')).toEqual([]);
  await snap(page, 'terraform-plan');

  // Confirm: the dialog shows the counts, then the saved plan is applied.
  await log.getByRole('button', { name: 'Confirm', exact: true }).click();
  const confirm = page.getByRole('dialog', { name: 'Apply this plan?' });
  await expect(confirm.getByTestId('plan-counts')).toContainText('2 to add');
  await expect(confirm.getByTestId('plan-counts')).toContainText('0 to change');
  expect(await seriousAxeFindings(page, '[role="dialog"]')).toEqual([]);
  await snap(page, 'terraform-plan-confirm');
  await confirm.getByRole('button', { name: 'Confirm and apply' }).click();
  await expect(confirm).toBeHidden();
  await expect(log.getByTestId('task-status')).toHaveAttribute('data-status', 'success', { timeout: 60_000 });
  await log.getByRole('tab', { name: 'Plan' }).click();
  await expect(log.getByTestId('plan-confirmed-by')).toContainText('Confirmed by');
  await log.getByRole('button', { name: 'Close' }).click();

  // A commit nobody applied: a drift check finds it and the badge says so.
  commit(repoDir, ONE);
  await page.getByRole('button', { name: 'Check drift' }).click();
  const check = page.getByRole('dialog', { name: 'Check drift' });
  await expect(check.getByLabel('Refresh only (ignore configuration changes)')).not.toBeChecked();
  await expect(check.getByLabel('Workspace')).toHaveText('staging (default)');
  await check.getByRole('button', { name: 'Start check' }).click();
  await expect(page.getByRole('dialog').getByTestId('task-status')).toHaveAttribute('data-status', 'success', {
    timeout: 60_000,
  });
  await page.getByRole('dialog').getByRole('button', { name: 'Close' }).click();
  await page.reload();
  const badge = page.getByTestId('drift-badge');
  await expect(badge).toHaveAttribute('data-status', 'drifted');
  await expect(badge).toContainText('Drifted');
  await badge.focus();
  await expect(page.getByRole('tooltip')).toContainText('0 to add, 0 to change, 0 to replace, 1 to destroy');
  await snap(page, 'terraform-plan-drift');
  // The templates list shows it too.
  await page.goto(`/project/${p}/templates`);
  await expect(page.getByRole('row', { name: /Infra/ }).getByTestId('drift-badge')).toHaveAttribute(
    'data-status',
    'drifted',
  );

  // So does the workspace in the inventory list.
  await page.goto(`/project/${p}/inventory`);
  await expect(page.getByRole('row', { name: /staging/ }).getByTestId('drift-badge')).toHaveAttribute(
    'data-status',
    'drifted',
  );
  expect(await seriousAxeFindings(page)).toEqual([]);

  // A policy set in the template's form: no destroys at all. The destroy plan is blocked with the reason.
  await page.goto(`/project/${p}/templates/${tpl.id}/tasks`);
  await page.getByRole('button', { name: 'Edit template' }).click();
  const form = page.getByRole('dialog', { name: 'Edit template' });
  await form.getByLabel('Maximum destroys').fill('-1');
  await form.getByRole('button', { name: 'Save' }).click();
  await expect(form.getByText('Maximum destroys must be a whole number from 0 to 100000')).toBeVisible();
  await form.getByLabel('Maximum destroys').fill('0');
  await form.getByRole('combobox', { name: 'Types that may not be created' }).fill('aws_instance');
  await page.keyboard.press('Enter');
  await expect(form.getByRole('button', { name: 'aws_instance' })).toBeVisible();
  // Typed without Enter: kept when the field loses focus, not lost on Save.
  await form.getByRole('combobox', { name: 'Types that may not be destroyed' }).fill('aws_db_*');
  await snap(page, 'terraform-plan-policy-form');
  await form.getByRole('button', { name: 'Save' }).click();
  await expect(form).toBeHidden();
  const saved = await (await page.request.get(`/api/project/${p}/templates/${tpl.id}`)).json();
  expect(saved.task_params.policy).toMatchObject({
    max_destroys: 0,
    deny_create_types: ['aws_instance'],
    deny_destroy_types: ['aws_db_*'],
  });

  await page.getByRole('button', { name: 'Run', exact: true }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Run', exact: true }).click();
  await expect(page.getByRole('dialog').getByTestId('task-status')).toHaveAttribute('data-status', 'rejected', {
    timeout: 60_000,
  });
  const blocked = page.getByRole('dialog');
  await expect(blocked.getByRole('tab', { name: 'Plan' })).toHaveAttribute('aria-selected', 'true');
  await expect(blocked.getByTestId('plan-counts')).toContainText('1 to destroy');
  await expect(blocked.getByTestId('policy-verdict')).toContainText("The template's policy blocks this plan");
  await expect(blocked.getByTestId('policy-verdict')).toContainText(
    'Resources destroyed or replaced by the plan: 1; the policy allows at most 0.',
  );
  await snap(page, 'terraform-plan-policy');
  await blocked.getByRole('button', { name: 'Close' }).click();

  // A drift-check schedule (refresh only), listed with its type.
  await page.goto(`/project/${p}/schedules`);
  await page.getByRole('button', { name: 'New schedule' }).click();
  const sched = page.getByRole('dialog');
  await sched.getByRole('textbox', { name: 'Name' }).fill('Nightly drift');
  await sched.getByLabel('Template').click();
  await page.getByRole('option', { name: 'Infra' }).click();
  await sched.getByLabel('Schedule type').click();
  await page.getByRole('option', { name: 'Drift check' }).click();
  await expect(sched.getByLabel('Run on new commit')).toBeHidden();
  await sched.getByLabel('Refresh only (ignore configuration changes)').check();
  // The template's default workspace is offered first; the check can plan the other one.
  await expect(sched.getByLabel('Workspace')).toHaveText('staging (default)');
  await sched.getByLabel('Workspace').click();
  await page.getByRole('option', { name: 'prod', exact: true }).click();
  await sched.getByLabel('Cron (UTC)').fill('0 3 * * *');
  await snap(page, 'terraform-plan-schedule');
  await sched.getByRole('button', { name: 'Create' }).click();
  await expect(sched).toBeHidden();
  await expect(page.getByRole('row', { name: /Nightly drift/ })).toContainText('Drift check (refresh only)');
  const schedules = await (await page.request.get(`/api/project/${p}/schedules`)).json();
  expect(schedules.find((s: { name: string }) => s.name === 'Nightly drift')).toMatchObject({
    type: 'drift_check',
    task_params: { refresh_only: true, inventory_id: prod.id },
  });
  expect(await seriousAxeFindings(page)).toEqual([]);
});

test('terraform plan on a 390px phone: plan tab and confirm dialog without page overflow', async ({ page }) => {
  test.setTimeout(120_000);
  const p = await createProject(page, unique('Plans phone'));
  const key = await (
    await page.request.post(`/api/project/${p}/keys`, { data: { name: 'none', type: 'none' }, headers: H })
  ).json();
  const repo = await (
    await page.request.post(`/api/project/${p}/repositories`, {
      data: { name: 'infra', git_url: gitRepo({ 'main.tf': TWO }), ssh_key_id: key.id },
      headers: H,
    })
  ).json();
  const env = await (
    await page.request.post(`/api/project/${p}/environment`, { data: { name: 'defaults', json: '{}' }, headers: H })
  ).json();
  const tpl = await (
    await page.request.post(`/api/project/${p}/templates`, {
      data: { name: 'Infra', app: 'terraform', repository_id: repo.id, environment_id: env.id, task_params: {} },
      headers: H,
    })
  ).json();
  const task = await (
    await page.request.post(`/api/project/${p}/tasks`, { data: { template_id: tpl.id }, headers: H })
  ).json();
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(`/project/${p}/templates/${tpl.id}/tasks?t=${task.id}`);
  const log = page.getByRole('dialog');
  await expect(log.getByTestId('task-status')).toHaveAttribute('data-status', 'waiting_confirmation', {
    timeout: 60_000,
  });
  await log.getByRole('button', { name: 'terraform_data.db' }).click();
  await expect(log.getByRole('table', { name: 'Attribute changes of terraform_data.db' })).toBeVisible();
  await expect.poll(() => page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  await snap(page, 'terraform-plan-phone');
  await log.getByRole('button', { name: 'Confirm', exact: true }).click();
  await expect(page.getByRole('dialog', { name: 'Apply this plan?' }).getByTestId('plan-counts')).toContainText(
    '2 to add',
  );
  await expect.poll(() => page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  await snap(page, 'terraform-plan-phone-confirm');
  await page.getByRole('dialog', { name: 'Apply this plan?' }).getByRole('button', { name: 'Cancel' }).click();
  await page.keyboard.press('Escape');
  await expect.poll(() => page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  await page.goto(`/project/${p}/templates/${tpl.id}/tasks`);
  await expect(page.getByRole('button', { name: 'Check drift' })).toBeVisible();
  await expect.poll(() => page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  await snap(page, 'terraform-plan-phone-template');
});
