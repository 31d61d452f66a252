import { expect, test, type APIRequestContext } from '@playwright/test';
import { E2E_ADMIN, signIn, unique } from './helpers';
import { gitRepo } from './repo';

const H = { 'x-gantry-request': '1' };
const FINISHED = ['success', 'error', 'stopped', 'rejected'];

/** A project with a bash template (a survey variable, arguments allowed per task) running `script`. */
async function bashTemplate(request: APIRequestContext, script: string): Promise<{ p: number; templateId: number }> {
  const p = ((await (await request.post('/api/projects', { data: { name: unique('Rerun') }, headers: H })).json()) as { id: number }).id;
  const key = await (await request.post(`/api/project/${p}/keys`, { data: { name: 'none', type: 'none' }, headers: H })).json();
  const repo = await (
    await request.post(`/api/project/${p}/repositories`, { data: { name: 'scripts', git_url: gitRepo({ 'run.sh': script }), ssh_key_id: key.id }, headers: H })
  ).json();
  const env = await (await request.post(`/api/project/${p}/environment`, { data: { name: 'defaults', json: '{}' }, headers: H })).json();
  const tpl = await (
    await request.post(`/api/project/${p}/templates`, {
      data: {
        name: 'Deploy site',
        app: 'bash',
        playbook: 'run.sh',
        repository_id: repo.id,
        environment_id: env.id,
        allow_override_args_in_task: true,
        survey_vars: [{ name: 'colour', title: 'Colour', type: '' }],
      },
      headers: H,
    })
  ).json();
  return { p, templateId: tpl.id as number };
}

async function waitFinished(request: APIRequestContext, p: number, id: number): Promise<void> {
  await expect
    .poll(async () => FINISHED.includes(((await (await request.get(`/api/project/${p}/tasks/${id}`)).json()) as { status: string }).status), {
      timeout: 90_000,
      intervals: [500],
    })
    .toBe(true);
}

test.beforeEach(async ({ page }) => signIn(page));

test('the log says who ran the task, when it started and how long it took, counting while it runs', async ({ page }) => {
  const { p, templateId } = await bashTemplate(page.request, 'echo start\nsleep 4\necho done\n');
  const res = await page.request.post(`/api/project/${p}/tasks`, { data: { template_id: templateId }, headers: H });
  const id = ((await res.json()) as { id: number }).id;
  await page.goto(`/project/${p}/history?t=${id}`);
  const dialog = page.getByRole('dialog');
  await expect(dialog.getByTestId('task-status')).toHaveAttribute('data-status', 'running', { timeout: 30_000 });
  await expect(dialog.getByTestId('task-info-author')).toHaveText(E2E_ADMIN.name);
  // The duration counts up while the task runs.
  const duration = dialog.getByTestId('task-info-duration');
  await expect(duration).toHaveText(/^\d+s$/);
  const first = await duration.textContent();
  await expect(duration).not.toHaveText(first!, { timeout: 5_000 });
  await page.screenshot({ path: '/tmp/forms/task-info-running.png' });

  await expect(dialog.getByTestId('task-status')).toHaveAttribute('data-status', 'success', { timeout: 30_000 });
  const task = (await (await page.request.get(`/api/project/${p}/tasks/${id}`)).json()) as { start: string; end: string };
  // The start in the console's language (English: month/day/year and a 12-hour clock).
  const start = await dialog.getByTestId('task-info-start').textContent();
  expect(start).toBe(new Intl.DateTimeFormat('en', { year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' }).format(new Date(task.start)));
  const took = Math.round((Date.parse(task.end) - Date.parse(task.start)) / 1000);
  await expect(duration).toHaveText(`${took}s`);
  await page.setViewportSize({ width: 390, height: 844 });
  await expect(dialog.getByTestId('task-info')).toBeInViewport();
  await page.screenshot({ path: '/tmp/forms/task-info-phone.png' });
});

test('a row of the history re-runs its task with the same message, answers and arguments', async ({ page }) => {
  const { p, templateId } = await bashTemplate(page.request, 'echo "colour=$colour"\n');
  const res = await page.request.post(`/api/project/${p}/tasks`, {
    data: { template_id: templateId, message: 'Friday release', environment: '{"colour":"teal"}', arguments: '["--fast"]' },
    headers: H,
  });
  expect(res.status()).toBe(201);
  const id = ((await res.json()) as { id: number }).id;
  await waitFinished(page.request, p, id);

  await page.goto(`/project/${p}/history`);
  const rerun = page.getByRole('button', { name: `Re-run task #${id}` });
  // Reached from the keyboard like the row's other controls.
  await rerun.focus();
  await page.keyboard.press('Enter');
  const dialog = page.getByRole('dialog', { name: 'New task: Deploy site' });
  await expect(dialog.getByLabel('Message')).toHaveValue('Friday release');
  await expect(dialog.getByLabel('Colour')).toHaveValue('teal');
  await expect(dialog.getByLabel('Arguments')).toHaveValue('["--fast"]');
  await page.screenshot({ path: '/tmp/forms/history-rerun.png' });
  await dialog.getByRole('button', { name: 'Run', exact: true }).click();
  await expect(page).toHaveURL(/[?&]t=\d+/);
  const again = Number(new URL(page.url()).searchParams.get('t'));
  expect(again).toBeGreaterThan(id);
  const copy = (await (await page.request.get(`/api/project/${p}/tasks/${again}`)).json()) as { message: string; environment: string; arguments: string };
  expect(copy.message).toBe('Friday release');
  expect(JSON.parse(copy.environment)).toEqual({ colour: 'teal' });
  expect(copy.arguments).toBe('["--fast"]');
});
