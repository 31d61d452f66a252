// `npm run screenshots` (playwright.screenshots.config.ts, not part of `npm test`): every screen of
// the console in each look of that config (light, dark, mobile), written to
// docs/screenshots/<look>/<screen>.png. The data is made through the API once per run and reused
// by the later looks, so all three show the same projects, tasks and people.
import fs from 'node:fs';
import path from 'node:path';
import { expect, test, type APIRequestContext, type Page } from '@playwright/test';
import { apiGet, apiPost, runToEnd } from './api-calls';
import { E2E_ADMIN } from './helpers';

const DOCS = path.resolve(import.meta.dirname, '../../../docs/screenshots');
const PROJECT = 'Web shop';

interface Seed {
  p: number;
  templateId: number;
  taskId: number;
  integrationId: number;
}

/** A demo project with a few runs, a schedule, an integration and a team; people, a token and a runner. */
async function seed(request: APIRequestContext): Promise<Seed> {
  const existing = (await apiGet<{ id: number; name: string }[]>(request, '/api/projects')).find((x) => x.name === PROJECT);
  const p = existing?.id ?? (await apiPost<{ id: number }>(request, '/api/projects', { name: PROJECT, demo: true })).id;
  const templates = await apiGet<{ id: number; name: string; app: string }[]>(request, `/api/project/${p}/templates`);
  const bash = templates.find((x) => x.app === 'bash') ?? templates[0]!;
  const integrations = await apiGet<{ id: number }[]>(request, `/api/project/${p}/integrations`);
  if (existing) {
    const tasks = await apiGet<{ id: number; template_id: number }[]>(request, `/api/project/${p}/tasks`);
    return { p, templateId: bash.id, taskId: tasks.find((x) => x.template_id === bash.id)!.id, integrationId: integrations[0]!.id };
  }

  await apiPost(request, '/api/projects', { name: 'Infrastructure' });
  await apiPost(request, '/api/projects', { name: 'Data platform' });
  for (const t of templates) if (t.id !== bash.id) await runToEnd(request, p, t.id);
  await runToEnd(request, p, bash.id);
  const taskId = await runToEnd(request, p, bash.id);
  await apiPost(request, `/api/project/${p}/schedules`, { name: 'Nightly greeting', template_id: bash.id, cron_format: '30 2 * * *' });
  const integration = await apiPost<{ id: number }>(request, `/api/project/${p}/integrations`, { name: 'Deploy on push', template_id: bash.id });
  await apiPost(request, `/api/project/${p}/integrations/${integration.id}/aliases`);
  const people = [
    { name: 'Grace Hopper', username: 'grace', role: 'manager' },
    { name: 'Linus Torvalds', username: 'linus', role: 'task_runner' },
    { name: 'Margaret Hamilton', username: 'margaret', role: 'guest' },
  ];
  for (const u of people) {
    const user = await apiPost<{ id: number }>(request, '/api/users', { name: u.name, username: u.username, email: `${u.username}@example.com`, password: `${u.username}-pass-1` });
    await apiPost(request, `/api/project/${p}/users`, { user_id: user.id, role: u.role });
  }
  await apiPost(request, '/api/user/tokens', { expires_in_days: 30 });
  await apiPost(request, '/api/runners', { name: 'build-01', tag: 'linux' });
  return { p, templateId: bash.id, taskId, integrationId: integration.id };
}

/** Waits for the page to settle (heading shown, no request or skeleton left), then saves the viewport. */
async function snap(page: Page, name: string): Promise<void> {
  await page.waitForLoadState('networkidle');
  await expect(page.locator('.MuiSkeleton-root')).toHaveCount(0);
  await page.screenshot({ path: path.join(DOCS, test.info().project.name, `${name}.png`), animations: 'disabled', caret: 'hide' });
}

/** Opens a page and shoots it once its main heading shows. */
async function screen(page: Page, url: string, name: string): Promise<void> {
  await page.goto(url);
  await expect(page.getByRole('heading', { level: 1 }).first()).toBeVisible();
  await snap(page, name);
}

/** The sign-in form; on a phone the user menu it usually waits for is in the closed drawer. */
async function signIn(page: Page): Promise<void> {
  await page.getByLabel('Username or email').fill(E2E_ADMIN.login);
  await page.getByLabel('Password', { exact: true }).fill(E2E_ADMIN.password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await expect(page).not.toHaveURL(/\/auth\/login/);
}

/** On a phone the sidebar is a drawer behind the menu button. */
async function openSidebar(page: Page, mobile: boolean): Promise<void> {
  if (mobile) await page.getByRole('button', { name: 'Open menu' }).click();
}

test('every screen of the console', async ({ page }) => {
  test.setTimeout(300_000);
  const look = test.info().project.name;
  const mobile = look === 'mobile';
  fs.rmSync(path.join(DOCS, look), { recursive: true, force: true });
  fs.mkdirSync(path.join(DOCS, look), { recursive: true });
  if (look === 'dark') await page.addInitScript(() => window.localStorage.setItem('darkMode', 'true'));

  await page.goto('/auth/login');
  await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
  await snap(page, 'sign-in');

  await signIn(page);
  const { p, templateId, taskId, integrationId } = await seed(page.request);
  const project = `/project/${p}`;

  await screen(page, `${project}/history`, 'history');
  await openSidebar(page, mobile);
  await page.getByTestId('project-switcher').click();
  await expect(page.getByRole('menuitem', { name: /Infrastructure/ })).toBeVisible();
  await snap(page, 'projects');
  await page.keyboard.press('Escape');

  await screen(page, `${project}/activity`, 'activity');
  await screen(page, `${project}/stats`, 'stats');
  await screen(page, `${project}/settings`, 'settings');
  await screen(page, `${project}/templates`, 'templates');
  await page.getByRole('button', { name: 'New template' }).click();
  await expect(page.getByRole('dialog', { name: 'New template' })).toBeVisible();
  await snap(page, 'new-template-dialog');
  await screen(page, `${project}/templates/${templateId}/tasks`, 'template-tasks');
  await screen(page, `${project}/templates/${templateId}/details`, 'template-details');
  await screen(page, `${project}/inventory`, 'inventories');
  await screen(page, `${project}/keys`, 'keys');
  await screen(page, `${project}/repositories`, 'repositories');
  await screen(page, `${project}/environment`, 'variable-groups');
  await screen(page, `${project}/schedules`, 'schedules');
  await screen(page, `${project}/integrations`, 'integrations');
  await screen(page, `${project}/integrations/${integrationId}`, 'integration');
  await screen(page, `${project}/team`, 'team');
  await screen(page, '/project/new', 'new-project');

  await page.goto(`${project}/history?t=${taskId}`);
  const log = page.getByRole('dialog');
  await expect(log.getByTestId('task-status')).toHaveAttribute('data-status', /success|error/);
  await expect(log.getByTestId('log-line').first()).toBeVisible();
  await snap(page, 'task-log');

  await screen(page, '/users', 'users');
  await screen(page, '/tokens', 'tokens');
  await screen(page, '/apps', 'apps');
  await screen(page, '/runners', 'runners');
  await screen(page, '/tasks', 'active-tasks');
  await screen(page, '/cluster', 'cluster');

  await openSidebar(page, mobile);
  await page.getByLabel('User menu').click();
  await page.getByRole('menuitem', { name: 'Language' }).click();
  await expect(page.getByRole('menu', { name: 'Language' })).toBeVisible();
  await snap(page, 'language-menu');
});
