import { expect, test } from '@playwright/test';
import { createProject, signIn, unique } from './helpers';
import { gitRepo } from './repo';
import { shot } from './shots';

const H = { 'x-gantry-request': '1' };

test('create a schedule with the cron builder, toggle it, then delete it', async ({ page }) => {
  await signIn(page);
  const p = await createProject(page, unique('Cron'));
  const key = await (await page.request.post(`/api/project/${p}/keys`, { data: { name: 'none', type: 'none' }, headers: H })).json();
  const repo = await (await page.request.post(`/api/project/${p}/repositories`, { data: { name: 'r', git_url: gitRepo({ 'a.sh': 'echo a\n' }), ssh_key_id: key.id }, headers: H })).json();
  const env = await (await page.request.post(`/api/project/${p}/environment`, { data: { name: 'e' }, headers: H })).json();
  await page.request.post(`/api/project/${p}/templates`, { data: { name: 'Nightly job', app: 'bash', playbook: 'a.sh', repository_id: repo.id, environment_id: env.id }, headers: H });

  await page.getByRole('link', { name: 'Schedule' }).click();
  await page.getByRole('button', { name: 'New schedule' }).click();
  const dialog = page.getByRole('dialog');
  await expect(dialog.getByLabel('Cron (UTC)')).toHaveValue('* * * * *');
  await dialog.getByRole('button', { name: 'Create' }).click();
  // The name is optional (a schedule without one is named after its cron); the template is not.
  await expect(dialog.getByText('Template is required')).toBeVisible();
  await expect(dialog.getByRole('textbox', { name: 'Name' })).toHaveAttribute('placeholder', '* * * * *');
  await dialog.getByRole('textbox', { name: 'Name' }).fill('Weekly report');
  await dialog.getByLabel('Template').click();
  await page.getByRole('option', { name: 'Nightly job' }).click();
  await dialog.getByRole('button', { name: 'Builder' }).click();
  const builder = dialog.getByTestId('cron-builder');
  await builder.getByLabel('Every').click();
  await page.getByRole('option', { name: 'Week' }).click();
  await builder.getByLabel('Weekday').click();
  await page.getByRole('option', { name: 'Monday' }).click();
  await builder.getByLabel('Hour (UTC)').click();
  await page.getByRole('option', { name: '09', exact: true }).click();
  await builder.getByLabel('Minute').click();
  await page.getByRole('option', { name: '30', exact: true }).click();
  await expect(dialog.getByLabel('Cron (UTC)')).toHaveValue('30 9 * * 1');
  await shot(page, 'schedule');
  await dialog.getByRole('button', { name: 'Create' }).click();

  const row = page.getByRole('row', { name: /Weekly report/ });
  await expect(row).toContainText('30 9 * * 1');
  await expect(row).toContainText('Nightly job');
  const toggle = page.getByRole('switch', { name: 'Active: Weekly report' });
  await expect(toggle).toBeChecked();
  await toggle.click();
  await expect(toggle).not.toBeChecked();
  await expect.poll(async () => (await (await page.request.get(`/api/project/${p}/schedules`)).json())[0].active).toBe(false);

  await page.getByRole('button', { name: 'Edit Weekly report' }).click();
  await dialog.getByLabel('Cron (UTC)').fill('61 * * * *');
  await dialog.getByRole('button', { name: 'Save' }).click();
  // The server's refusal, in the console's words (code cron_invalid).
  await expect(dialog.getByText('Invalid cron expression', { exact: true }).first()).toBeVisible();
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await page.getByRole('button', { name: 'Delete Weekly report' }).click();
  await dialog.getByRole('button', { name: 'Delete' }).click();
  await expect(page.getByText('No schedules yet')).toBeVisible();
});

test("a template's cron is checked by the server first, then becomes its schedule", async ({ page }) => {
  await signIn(page);
  const p = await createProject(page, unique('Tpl cron'));
  const key = await (await page.request.post(`/api/project/${p}/keys`, { data: { name: 'none', type: 'none' }, headers: H })).json();
  const repo = await (await page.request.post(`/api/project/${p}/repositories`, { data: { name: 'r', git_url: gitRepo({ 'a.sh': 'echo a\n' }), ssh_key_id: key.id }, headers: H })).json();
  const env = await (await page.request.post(`/api/project/${p}/environment`, { data: { name: 'e' }, headers: H })).json();
  const tpl = await (await page.request.post(`/api/project/${p}/templates`, { data: { name: 'Backup', app: 'bash', playbook: 'a.sh', repository_id: repo.id, environment_id: env.id }, headers: H })).json();
  const schedules = async () => (await (await page.request.get(`/api/project/${p}/templates/${tpl.id}/schedules`)).json()) as Array<{ cron_format: string }>;

  await page.goto(`/project/${p}/templates/${tpl.id}/details`);
  // The details name the app by its title, not its id.
  await expect(page.getByRole('row', { name: /^App/ })).toContainText('Bash Script');
  await expect(page.getByTestId('template-schedules')).toContainText('No schedules run this template');
  await page.getByRole('button', { name: 'Edit template' }).click();
  const dialog = page.getByRole('dialog');
  await dialog.getByLabel('Cron (UTC)').fill('61 * * * *');
  await dialog.getByRole('button', { name: 'Save' }).click();
  // The server's refusal, in the console's words (code cron_invalid).
  await expect(dialog.getByText('Invalid cron expression', { exact: true }).first()).toBeVisible();
  expect(await schedules()).toHaveLength(0);

  await dialog.getByLabel('Cron (UTC)').fill('0 3 * * *');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByTestId('template-schedules')).toContainText('0 3 * * *');
  expect((await schedules()).map((s) => s.cron_format)).toEqual(['0 3 * * *']);

  // Emptying the field removes the template's schedule.
  await page.getByRole('button', { name: 'Edit template' }).click();
  await expect(dialog.getByLabel('Cron (UTC)')).toHaveValue('0 3 * * *');
  await dialog.getByLabel('Cron (UTC)').fill('');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByTestId('template-schedules')).toContainText('No schedules run this template');
  expect(await schedules()).toHaveLength(0);
});
