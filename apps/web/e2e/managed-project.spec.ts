// A project managed by code (issue 28): set through the API as `gantry apply` sets it, its pages
// show the note and no create/edit controls while running stays allowed; an owner turns it off in
// the project's settings and the controls come back.
import { expect, test } from '@playwright/test';
import { apiPost } from './api-calls';
import { seriousAxeFindings } from './axe';
import { createProject, signIn, unique } from './helpers';
import { gitRepo } from './repo';

const NOTE = 'This project is managed by code: change its files and run gantry apply.';

test('a project managed by code is read-only in the console until its owner turns that off', async ({ page }) => {
  test.setTimeout(120_000);
  await signIn(page);
  const name = unique('Managed');
  const p = await createProject(page, name);
  const key = await apiPost<{ id: number }>(page.request, `/api/project/${p}/keys`, { name: 'none', type: 'none' });
  const repo = await apiPost<{ id: number }>(page.request, `/api/project/${p}/repositories`, {
    name: 'scripts',
    git_url: gitRepo({ 'hello.sh': 'echo "hello"\n' }),
    ssh_key_id: key.id,
  });
  const env = await apiPost<{ id: number }>(page.request, `/api/project/${p}/environment`, {
    name: 'defaults',
    json: '{}',
  });
  const tpl = await apiPost<{ id: number }>(page.request, `/api/project/${p}/templates`, {
    name: 'Hello',
    app: 'bash',
    playbook: 'hello.sh',
    repository_id: repo.id,
    environment_id: env.id,
  });
  // As `gantry apply` marks it: only the flag, the other settings kept.
  const put = await page.request.put(`/api/project/${p}`, {
    data: { managed_by_code: true },
    headers: { 'x-gantry-request': '1' },
  });
  expect(put.status()).toBe(204);

  await page.goto(`/project/${p}/templates`);
  await expect(page.getByText(NOTE)).toBeVisible();
  await expect(page.getByRole('link', { name: 'Hello' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'New template' })).toHaveCount(0);
  expect(await seriousAxeFindings(page)).toEqual([]);

  await page.goto(`/project/${p}/keys`);
  await expect(page.getByText(NOTE)).toBeVisible();
  await expect(page.getByRole('button', { name: 'New key' })).toHaveCount(0);

  // The template page: no edit, but Run works.
  await page.goto(`/project/${p}/templates/${tpl.id}`);
  await expect(page.getByText(NOTE)).toBeVisible();
  await expect(page.getByRole('heading', { name: 'Hello' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Edit template' })).toHaveCount(0);
  await page.getByRole('button', { name: 'Run', exact: true }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Run', exact: true }).click();
  await expect(page.getByRole('dialog').getByTestId('task-status')).toHaveAttribute('data-status', 'success', {
    timeout: 60_000,
  });
  await page.keyboard.press('Escape');

  // The owner turns it off in the settings: the note goes and the controls come back.
  await page.goto(`/project/${p}/settings`);
  const toggle = page.getByRole('switch', { name: 'Managed by code' });
  await expect(toggle).toBeChecked();
  expect(await seriousAxeFindings(page)).toEqual([]);
  await toggle.click();
  await expect(page.getByText(`Project ${name} saved`)).toBeVisible();
  await expect(toggle).not.toBeChecked();
  await expect(page.getByText(NOTE)).toHaveCount(0);

  await page.goto(`/project/${p}/templates`);
  await expect(page.getByRole('button', { name: 'New template' })).toBeVisible();
  await expect(page.getByText(NOTE)).toHaveCount(0);
  await page.goto(`/project/${p}/templates/${tpl.id}`);
  await expect(page.getByRole('button', { name: 'Edit template' })).toBeVisible();
});
