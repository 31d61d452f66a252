// The console's main pages and a project that fills them, shared by the accessibility and the
// phone-layout specs: each visits every page the same way and checks its own things there.
import fs from 'node:fs';
import path from 'node:path';
import { expect, type APIRequestContext, type Page, type PlaywrightWorkerArgs } from '@playwright/test';
import type english from '../src/locales/en.json';
import { apiGet, apiPost, runToEnd } from './api-calls';
import { stillFrame } from './axe';
import { E2E_ADMIN, unique } from './helpers';
import { gitRepo } from './repo';

export type Dictionary = typeof english;

/** A dictionary as the console ships it, so texts looked for follow the language on screen. */
export function dictionary(code: string): Dictionary {
  return JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, `../src/locales/${code}.json`), 'utf8')) as Dictionary;
}

const H = { 'x-gantry-request': '1' };
const MAIN_TF = 'resource "terraform_data" "web" {\n  input = "e2e"\n}\n';
// Enough output, and lines long enough, that the log scrolls both ways.
const LONG_SH = 'for i in $(seq 1 120); do echo "host web-$i.example.com: ok=3 changed=1 unreachable=0 failed=0 skipped=0 rescued=0 ignored=0"; done\n';
const LOG_TEMPLATE = 'Check every web server of the shop (Bash)';

/** What the pages show: a demo project with runs, a terraform template with state, people. */
export interface ConsoleFixture {
  p: number;
  /** The demo's Bash template, run once. */
  bash: number;
  /** The demo's Ansible template (its form has the run options). */
  ansible: number;
  /** A terraform template with two workspaces, one of them with a state version. */
  terraform: number;
  /** A finished task with a long log, for the log dialog. */
  taskId: number;
  integrationId: number;
  /** A workflow of two Bash steps, run once to its end (workflowRun). */
  workflow: number;
  workflowRun: number;
  /** The name of the template of that task (the log dialog's header shows it). */
  logTemplate: string;
}

/** Signs a request context (a page's, or a new one) in as the admin through the API. */
export async function apiSignIn(request: APIRequestContext): Promise<void> {
  const res = await request.post('/api/auth/login', { data: { auth: E2E_ADMIN.login, password: E2E_ADMIN.password }, headers: H });
  expect(res.status()).toBe(204);
}

/** Makes the project once per spec file (call from beforeAll). */
export async function seedConsole(playwright: PlaywrightWorkerArgs['playwright'], baseURL: string): Promise<ConsoleFixture> {
  const request = await playwright.request.newContext({ baseURL });
  try {
    await apiSignIn(request);
    const p = (await apiPost<{ id: number }>(request, '/api/projects', { name: unique('Web shop'), demo: true })).id;
    const templates = await apiGet<{ id: number; name: string; app: string }[]>(request, `/api/project/${p}/templates`);
    const bash = templates.find((x) => x.app === 'bash')!;
    const ansible = templates.find((x) => x.app === 'ansible')!;
    await runToEnd(request, p, bash.id);

    const key = (await apiGet<{ id: number }[]>(request, `/api/project/${p}/keys`))[0]!;
    const env = (await apiGet<{ id: number }[]>(request, `/api/project/${p}/environment`))[0]!;
    const repo = await apiPost<{ id: number }>(request, `/api/project/${p}/repositories`, { name: 'Infrastructure code', git_url: gitRepo({ 'main.tf': MAIN_TF, 'check.sh': LONG_SH }), ssh_key_id: key.id });
    const tf = await apiPost<{ id: number }>(request, `/api/project/${p}/templates`, {
      name: 'Provision the web servers (Terraform)',
      app: 'terraform',
      repository_id: repo.id,
      environment_id: env.id,
      task_params: { auto_approve: true },
    });
    for (const name of ['production', 'staging']) {
      const inv = await apiPost<{ id: number }>(request, `/api/project/${p}/inventory`, { name, type: 'terraform-workspace', inventory: name, ssh_key_id: key.id });
      await apiPost(request, `/api/project/${p}/templates/${tf.id}/inventory/${inv.id}/attach`);
      if (name === 'production') await apiPost(request, `/api/project/${p}/templates/${tf.id}/inventory/${inv.id}/set_default`);
    }
    await runToEnd(request, p, tf.id);
    const long = await apiPost<{ id: number }>(request, `/api/project/${p}/templates`, { name: LOG_TEMPLATE, app: 'bash', playbook: 'check.sh', repository_id: repo.id, environment_id: env.id });
    const taskId = await runToEnd(request, p, long.id);

    await apiPost(request, `/api/project/${p}/schedules`, { name: 'Nightly greeting', template_id: bash.id, cron_format: '30 2 * * *' });
    const integration = await apiPost<{ id: number }>(request, `/api/project/${p}/integrations`, { name: 'Deploy on push', template_id: bash.id });
    await apiPost(request, `/api/project/${p}/integrations/${integration.id}/aliases`);
    const workflow = await apiPost<{ id: number }>(request, `/api/project/${p}/workflows`, {
      name: 'Release the shop',
      nodes: [
        { id: 'greet', type: 'template', template_id: bash.id, position: { x: 0, y: 0 } },
        { id: 'check', type: 'template', template_id: long.id, position: { x: 0, y: 140 } },
      ],
      edges: [{ from: 'greet', to: 'check', on: 'success' }],
    });
    const run = await apiPost<{ id: number }>(request, `/api/project/${p}/workflows/${workflow.id}/runs`);
    await expect
      .poll(async () => (await apiGet<{ status: string }>(request, `/api/project/${p}/workflows/${workflow.id}/runs/${run.id}`)).status, { timeout: 60_000 })
      .toMatch(/^(success|failed)$/);
    const login = `a11y${Date.now().toString(36)}`;
    const user = await apiPost<{ id: number }>(request, '/api/users', { name: 'Grace Hopper', username: login, email: `${login}@example.com`, password: 'grace-pass-1' });
    await apiPost(request, `/api/project/${p}/users`, { user_id: user.id, role: 'task_runner' });
    await apiPost(request, '/api/user/tokens', { expires_in_days: 30 });
    await apiPost(request, '/api/runners', { name: unique('build'), tag: 'linux' });
    return { p, bash: bash.id, ansible: ansible.id, terraform: tf.id, taskId, integrationId: integration.id, workflow: workflow.id, workflowRun: run.id, logTemplate: LOG_TEMPLATE };
  } finally {
    await request.dispose();
  }
}

/** One screen of the console: where it is, how to reach its state, what must stay reachable. */
export interface ConsolePage {
  name: string;
  url(f: ConsoleFixture): string;
  /** After the page settled: opens what this screen is about (a dialog); answers the dialog. */
  open?(page: Page, d: Dictionary, f: ConsoleFixture): Promise<void>;
  /** Buttons (by name) that must be wholly on screen, e.g. a page header's main action. */
  buttons?(d: Dictionary): string[];
}

/** The stats chart loads after its page: waits for its bars and legend. */
async function chartShown(page: Page): Promise<void> {
  await expect(page.getByTestId('stats-chart').locator('.recharts-legend-item').first()).toBeVisible();
}

/** Every main page of a signed-in admin, with the log dialog and a create dialog open. */
export const MAIN_PAGES: ConsolePage[] = [
  { name: 'dashboard', url: (f) => `/project/${f.p}/history` },
  { name: 'new project', url: () => '/project/new' },
  { name: 'templates', url: (f) => `/project/${f.p}/templates`, buttons: (d) => [d.templates.new] },
  { name: 'template tasks', url: (f) => `/project/${f.p}/templates/${f.bash}/tasks`, buttons: (d) => [d.templates.run] },
  { name: 'template details', url: (f) => `/project/${f.p}/templates/${f.bash}/details`, open: chartShown },
  { name: 'inventories', url: (f) => `/project/${f.p}/inventory`, buttons: (d) => [d.inventories.new] },
  { name: 'keys', url: (f) => `/project/${f.p}/keys`, buttons: (d) => [d.keys.new] },
  { name: 'repositories', url: (f) => `/project/${f.p}/repositories`, buttons: (d) => [d.repositories.new] },
  { name: 'variable groups', url: (f) => `/project/${f.p}/environment`, buttons: (d) => [d.environments.new] },
  { name: 'team', url: (f) => `/project/${f.p}/team`, buttons: (d) => [d.team.addMember] },
  { name: 'schedules', url: (f) => `/project/${f.p}/schedules`, buttons: (d) => [d.schedules.new] },
  { name: 'integrations', url: (f) => `/project/${f.p}/integrations`, buttons: (d) => [d.integrations.new] },
  { name: 'integration', url: (f) => `/project/${f.p}/integrations/${f.integrationId}` },
  { name: 'notifications', url: (f) => `/project/${f.p}/notifications`, buttons: (d) => [d.notifications.newDestination] },
  { name: 'workflows', url: (f) => `/project/${f.p}/workflows`, buttons: (d) => [d.workflows.new] },
  { name: 'workflow editor', url: (f) => `/project/${f.p}/workflows/${f.workflow}` },
  { name: 'workflow run', url: (f) => `/project/${f.p}/workflows/${f.workflow}/runs/${f.workflowRun}` },
  { name: 'project approvals', url: (f) => `/project/${f.p}/approvals` },
  { name: 'approvals inbox', url: () => '/approvals' },
  { name: 'settings', url: (f) => `/project/${f.p}/settings` },
  { name: 'activity', url: (f) => `/project/${f.p}/activity` },
  { name: 'stats', url: (f) => `/project/${f.p}/stats`, open: chartShown },
  { name: 'project runners', url: (f) => `/project/${f.p}/runners` },
  { name: 'users', url: () => '/users', buttons: (d) => [d.users.new] },
  { name: 'active tasks', url: () => '/tasks' },
  { name: 'apps', url: () => '/apps' },
  { name: 'runners', url: () => '/runners', buttons: (d) => [d.runners.new] },
  { name: 'cluster', url: () => '/cluster' },
  { name: 'identity mappings', url: () => '/identity-mappings', buttons: (d) => [d.identity.new] },
  { name: 'security', url: () => '/security' },
  { name: 'audit', url: () => '/audit' },
  { name: 'global notifications', url: () => '/notifications' },
  { name: 'tokens', url: () => '/tokens', buttons: (d) => [d.tokens.new] },
  {
    name: 'task log dialog',
    url: (f) => `/project/${f.p}/history?t=${f.taskId}`,
    open: async (page) => {
      const log = page.getByRole('dialog');
      await expect(log.getByTestId('task-status')).toHaveAttribute('data-status', /success|error/);
      await expect(log.getByTestId('log-line').first()).toBeVisible();
    },
    buttons: (d) => [d.common.close],
  },
  {
    name: 'create dialog',
    url: (f) => `/project/${f.p}/keys`,
    open: async (page, d) => {
      await page.getByRole('button', { name: d.keys.new }).click();
      await expect(page.getByRole('dialog', { name: d.keys.newTitle })).toBeVisible();
    },
    buttons: (d) => [d.common.create],
  },
];

/** More screens a phone must fit: the terraform State tab, the template form and a destination's form. */
export const PHONE_PAGES: ConsolePage[] = [
  {
    name: 'destination form',
    url: (f) => `/project/${f.p}/notifications`,
    open: async (page, d) => {
      await page.getByRole('button', { name: d.notifications.newDestination }).click();
      await expect(page.getByRole('dialog', { name: d.notifications.newDestination })).toBeVisible();
    },
    buttons: (d) => [d.notifications.generate, d.common.create],
  },
  { name: 'terraform state', url: (f) => `/project/${f.p}/templates/${f.terraform}/state`, buttons: (d) => [d.workspaces.new, d.workspaces.attach] },
  {
    name: 'template form',
    url: (f) => `/project/${f.p}/templates/${f.ansible}/details`,
    open: async (page, d) => {
      await page.getByRole('button', { name: d.templates.edit }).click();
      await expect(page.getByRole('dialog', { name: d.templates.editTitle })).toBeVisible();
    },
    buttons: (d) => [d.common.save, d.common.cancel],
  },
];

/** Waits until the page stopped loading and moving: no request, skeleton or transition left. */
export async function settle(page: Page): Promise<void> {
  await page.waitForLoadState('networkidle');
  await expect(page.locator('.MuiSkeleton-root')).toHaveCount(0);
  await stillFrame(page);
}

/** Opens a page (and its dialog), ready to be checked. */
export async function visit(page: Page, screen: ConsolePage, d: Dictionary, f: ConsoleFixture): Promise<void> {
  await page.goto(screen.url(f));
  // A dialog opened by the address hides the page from the accessibility tree, not from view.
  await expect(page.getByRole('heading', { level: 1, includeHidden: true }).first()).toBeVisible();
  await settle(page);
  if (screen.open) {
    await screen.open(page, d, f);
    await settle(page);
  }
}
