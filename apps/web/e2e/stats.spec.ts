import { expect, test, type APIRequestContext } from '@playwright/test';
import { createProject, signIn, unique } from './helpers';
import { gitRepo } from './repo';
import { shot } from './shots';

const H = { 'x-gantry-request': '1' };

/** Runs a task of the template through the API and waits for its final status. */
async function runToEnd(request: APIRequestContext, p: number, templateId: number): Promise<string> {
  const task = await (
    await request.post(`/api/project/${p}/tasks`, { data: { template_id: templateId }, headers: H })
  ).json();
  let status = '';
  await expect
    .poll(
      async () => {
        status = (await (await request.get(`/api/project/${p}/tasks/${task.id}`)).json()).status;
        return ['success', 'error', 'stopped'].includes(status);
      },
      { timeout: 30_000 },
    )
    .toBe(true);
  return status;
}

test('the stats chart counts the tasks that ran, by range, user and template', async ({ page }) => {
  await signIn(page);
  const login = `st${Date.now().toString(36)}`;
  const other = await (
    await page.request.post('/api/users', {
      data: { name: `Idle ${login}`, username: login, email: `${login}@example.com`, password: 'p' },
      headers: H,
    })
  ).json();
  const p = await createProject(page, unique('Stats'));
  await page.request.post(`/api/project/${p}/users`, { data: { user_id: other.id, role: 'guest' }, headers: H });
  const key = await (
    await page.request.post(`/api/project/${p}/keys`, { data: { name: 'none', type: 'none' }, headers: H })
  ).json();
  const repo = await (
    await page.request.post(`/api/project/${p}/repositories`, {
      data: { name: 'r', git_url: gitRepo({ 'ok.sh': 'echo ok\n', 'fail.sh': 'exit 3\n' }), ssh_key_id: key.id },
      headers: H,
    })
  ).json();
  const env = await (
    await page.request.post(`/api/project/${p}/environment`, { data: { name: 'e' }, headers: H })
  ).json();
  const base = { app: 'bash', repository_id: repo.id, environment_id: env.id };
  const ok = await (
    await page.request.post(`/api/project/${p}/templates`, {
      data: { ...base, name: 'Passes', playbook: 'ok.sh' },
      headers: H,
    })
  ).json();
  const bad = await (
    await page.request.post(`/api/project/${p}/templates`, {
      data: { ...base, name: 'Fails', playbook: 'fail.sh' },
      headers: H,
    })
  ).json();
  expect(await runToEnd(page.request, p, ok.id)).toBe('success');
  expect(await runToEnd(page.request, p, ok.id)).toBe('success');
  expect(await runToEnd(page.request, p, bad.id)).toBe('error');

  await page.goto(`/project/${p}/history`);
  await page.getByRole('tab', { name: 'Stats' }).click();
  await expect(page).toHaveURL(new RegExp(`/project/${p}/stats$`));
  const chart = page.getByTestId('stats-chart');
  await expect(chart).toHaveAttribute('data-total', '3');
  await expect(chart.locator('.recharts-bar-rectangle').first()).toBeVisible();
  await expect(page.getByRole('button', { name: 'Past week' })).toHaveAttribute('aria-pressed', 'true');
  await page.getByRole('button', { name: 'Past month' }).click();
  await expect(page.getByRole('button', { name: 'Past month' })).toHaveAttribute('aria-pressed', 'true');
  await expect(chart).toHaveAttribute('data-total', '3');
  await shot(page, 'stats');

  // The admin started every task: the member who ran nothing has none, the admin all of them.
  const userFilter = page.getByRole('combobox', { name: 'User' });
  await userFilter.click();
  await page.getByRole('option', { name: `Idle ${login}` }).click();
  await expect(chart).toHaveAttribute('data-total', '0');
  await userFilter.click();
  await page.getByRole('option', { name: 'All users' }).click();
  await expect(chart).toHaveAttribute('data-total', '3');

  // The template page counts only that template's runs.
  await page.goto(`/project/${p}/templates/${bad.id}/details`);
  await expect(page.getByTestId('stats-chart')).toHaveAttribute('data-total', '1');
});
