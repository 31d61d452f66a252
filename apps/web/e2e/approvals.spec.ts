// Approvals in the console (issue 24): a template's approval policy set through its form, tasks
// started by another user waiting in `waiting_approval`, the approver's inbox badge, approve with
// a comment (the task then runs to success) and reject (the task ends rejected), the one-time
// link landing with a bad token, and axe + phone checks on the new pages.
import { expect, test, type APIRequestContext, type Browser, type Page } from '@playwright/test';
import { apiGet, apiPost } from './api-calls';
import { seriousAxeFindings } from './axe';
import { createProject, signIn, unique } from './helpers';
import { gitRepo } from './repo';
import { shot } from './shots';

const PASSWORD = 'approvals-e2e-pass';
const PHONE = { width: 390, height: 844 };

interface Task {
  id: number;
  status: string;
}
interface Approval {
  id: number;
  status: string;
  task_id: number | null;
  votes: { username: string; decision: string; comment: string }[];
}

/** A user made through the admin's API and added to the project's team with a role. */
async function member(request: APIRequestContext, p: number, prefix: string, name: string, role: string) {
  const login = `${prefix}${Date.now().toString(36)}`;
  const user = await apiPost<{ id: number }>(request, '/api/users', {
    name,
    username: login,
    email: `${login}@example.com`,
    password: PASSWORD,
  });
  await apiPost(request, `/api/project/${p}/users`, { user_id: user.id, role });
  return { id: user.id, login, name };
}

/** A second browser signed in as another user (the admin's page stays as it is). */
async function asUser(browser: Browser, baseURL: string, login: string): Promise<Page> {
  const ctx = await browser.newContext({ baseURL, viewport: { width: 1366, height: 860 } });
  const page = await ctx.newPage();
  await signIn(page, login, PASSWORD);
  return page;
}

async function waitForTask(request: APIRequestContext, p: number, id: number, status: RegExp) {
  await expect
    .poll(async () => (await apiGet<Task>(request, `/api/project/${p}/tasks/${id}`)).status, { timeout: 60_000 })
    .toMatch(status);
}

/** The page does not scroll sideways at a phone's width. */
async function fitsPhone(page: Page): Promise<void> {
  const { scroll, client } = await page.evaluate(() => ({
    scroll: document.scrollingElement!.scrollWidth,
    client: document.scrollingElement!.clientWidth,
  }));
  expect(scroll, 'the page scrolls sideways').toBeLessThanOrEqual(client);
}

test('an approval policy set in the template form holds tasks until an approver decides', async ({
  page,
  browser,
}, info) => {
  test.setTimeout(180_000);
  const baseURL = info.project.use.baseURL!;
  await signIn(page);
  const p = await createProject(page, unique('Approvals'));
  const H = { 'x-gantry-request': '1' };
  const key = await apiPost<{ id: number }>(page.request, `/api/project/${p}/keys`, { name: 'none', type: 'none' });
  const repo = await apiPost<{ id: number }>(page.request, `/api/project/${p}/repositories`, {
    name: 'scripts',
    git_url: gitRepo({ 'deploy.sh': 'echo "deploying"\necho "deployed"\n' }),
    ssh_key_id: key.id,
  });
  const env = await apiPost<{ id: number }>(page.request, `/api/project/${p}/environment`, {
    name: 'defaults',
    json: '{}',
  });
  const tpl = await apiPost<{ id: number }>(page.request, `/api/project/${p}/templates`, {
    name: 'Deploy prod',
    app: 'bash',
    playbook: 'deploy.sh',
    repository_id: repo.id,
    environment_id: env.id,
  });
  const ann = await member(page.request, p, 'ann', 'Ann Approver', 'guest');
  const rick = await member(page.request, p, 'rick', 'Rick Requester', 'task_runner');

  // The admin sets the policy through the form, by keyboard where it matters.
  await page.goto(`/project/${p}/templates/${tpl.id}`);
  await page.getByRole('button', { name: 'Edit template' }).click();
  const dialog = page.getByRole('dialog');
  const section = dialog.getByRole('button', { name: /^Approval/ });
  await expect(section).toHaveAttribute('aria-expanded', 'false');
  await section.focus();
  await page.keyboard.press('Enter');
  await expect(section).toHaveAttribute('aria-expanded', 'true');
  await dialog.getByLabel('Tasks of this template need approval before they start').check();
  // Take the default roles away: a policy nobody can approve is refused, in the user's words.
  const roles = dialog.getByRole('combobox', { name: 'Approving roles' });
  await roles.focus();
  await page.keyboard.press('Backspace');
  await page.keyboard.press('Backspace');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(dialog.getByText('Name at least one approver: a user, a role or a group')).toBeVisible();
  // Ann, by name, through the keyboard.
  const users = dialog.getByRole('combobox', { name: 'Approving users' });
  await users.focus();
  await page.keyboard.type('Ann');
  await expect(page.getByRole('option', { name: new RegExp(`Ann Approver \\(${ann.login}\\)`) })).toBeVisible();
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Enter');
  await expect(dialog.getByRole('button', { name: new RegExp(`Ann Approver \\(${ann.login}\\)`) })).toBeVisible();
  await dialog.getByLabel('Timeout (minutes)').fill('60');
  await shot(page, 'approvals-template-form');
  expect(await seriousAxeFindings(page, '[role="dialog"]')).toEqual([]);
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(dialog).toBeHidden();
  const saved = await apiGet<{ approval_policy: unknown }>(page.request, `/api/project/${p}/templates/${tpl.id}`);
  expect(saved.approval_policy).toMatchObject({
    approvers: { users: [ann.id], roles: [], groups: [] },
    required_approvals: 1,
    allow_self_approval: false,
    timeout_seconds: 3600,
    on_timeout: 'reject',
  });

  // Rick runs it: the task waits for approval, which the log's status says.
  const rickPage = await asUser(browser, baseURL, rick.login);
  await rickPage.goto(`/project/${p}/templates/${tpl.id}`);
  await rickPage.getByRole('button', { name: 'Run', exact: true }).click();
  await rickPage.getByRole('dialog').getByRole('button', { name: 'Run', exact: true }).click();
  await expect(rickPage.getByRole('dialog').getByTestId('task-status')).toHaveAttribute(
    'data-status',
    'waiting_approval',
  );
  await expect(rickPage.getByRole('dialog').getByTestId('task-status')).toHaveText('Waiting for approval');
  const first = Number(new URL(rickPage.url()).searchParams.get('t'));
  expect(first).toBeGreaterThan(0);

  // Ann's sidebar counts it; her inbox lists it; she approves with a comment.
  const annPage = await asUser(browser, baseURL, ann.login);
  await annPage.goto(`/project/${p}/history`);
  await expect(annPage.getByTestId('approvals-badge')).toHaveAttribute('data-count', '1');
  await expect(annPage.getByRole('link', { name: /Approvals.*1 waiting for you/ })).toBeVisible();
  await annPage.getByTestId('nav-approvals').click();
  await expect(annPage).toHaveURL(/\/approvals$/);
  await expect(annPage.getByRole('heading', { name: 'Waiting for my approval' })).toBeVisible();
  const row = annPage.getByTestId('approval-row');
  await expect(row).toHaveCount(1);
  await expect(row).toContainText('Rick Requester');
  await expect(row).toContainText('0 of 1 approvals');
  expect(await seriousAxeFindings(annPage)).toEqual([]);
  await shot(annPage, 'approvals-inbox');
  await row.getByRole('link').first().click();
  await expect(annPage).toHaveURL(new RegExp(`/project/${p}/approvals/\\d+$`));
  await expect(annPage.getByTestId('approval-approvers')).toContainText('Ann Approver');
  await annPage.getByRole('textbox', { name: 'Comment' }).fill('Ship it, checked the change list');
  expect(await seriousAxeFindings(annPage)).toEqual([]);
  await shot(annPage, 'approvals-detail');
  await annPage.getByRole('button', { name: 'Approve', exact: true }).click();
  await expect(annPage.getByText('Your approval was recorded')).toBeVisible();
  await expect(annPage.getByTestId('approval-status').first()).toHaveAttribute('data-status', 'approved');
  await expect(annPage.getByTestId('approval-vote')).toContainText('Ship it, checked the change list');
  await expect(annPage.getByRole('button', { name: 'Approve', exact: true })).toHaveCount(0);
  await expect(annPage.getByTestId('approvals-badge')).toHaveAttribute('data-count', '0');
  await waitForTask(page.request, p, first, /^success$/);
  await shot(annPage, 'approvals-approved');

  // The requester sees the approval, and cannot decide it himself.
  const rejectTask = await apiPost<Task>(rickPage.request, `/api/project/${p}/tasks`, { template_id: tpl.id });
  expect(rejectTask.status).toBe('waiting_approval');
  const pending = await apiGet<Approval[]>(page.request, `/api/project/${p}/approvals?status=pending`);
  const second = pending.find((a) => a.task_id === rejectTask.id)!;
  await rickPage.goto(`/project/${p}/approvals/${second.id}`);
  await expect(rickPage.getByText(/You cannot decide this approval/)).toBeVisible();
  await expect(rickPage.getByRole('button', { name: 'Reject', exact: true })).toHaveCount(0);

  // The reject path, from the project's list, by keyboard; the task ends rejected.
  await annPage.goto(`/project/${p}/approvals`);
  await expect(annPage.getByRole('heading', { name: 'Project approvals' })).toBeVisible();
  await expect(annPage.getByTestId('approval-row')).toHaveCount(1);
  await annPage.getByRole('button', { name: 'All', exact: true }).click();
  await expect(annPage.getByTestId('approval-row')).toHaveCount(2);
  await annPage.getByRole('button', { name: 'Pending', exact: true }).click();
  await expect(annPage.getByTestId('approval-row')).toHaveCount(1);
  await annPage.getByTestId('approval-row').getByRole('link').first().focus();
  await annPage.keyboard.press('Enter');
  await expect(annPage).toHaveURL(new RegExp(`/project/${p}/approvals/${second.id}$`));
  await annPage.getByRole('textbox', { name: 'Comment' }).fill('Not during the freeze');
  await annPage.getByRole('button', { name: 'Reject', exact: true }).focus();
  await annPage.keyboard.press('Enter');
  await expect(annPage.getByText('Your rejection was recorded')).toBeVisible();
  await expect(annPage.getByTestId('approval-status').first()).toHaveAttribute('data-status', 'rejected');
  await waitForTask(page.request, p, rejectTask.id, /^rejected$/);
  const decided = await apiGet<Approval>(page.request, `/api/project/${p}/approvals/${second.id}`);
  expect(decided.votes).toEqual([
    expect.objectContaining({ username: ann.login, decision: 'reject', comment: 'Not during the freeze' }),
  ]);

  // A second vote is refused, and the refusal shows in the user's words (not a bare 409).
  const again = await annPage.request.post(`/api/project/${p}/approvals/${second.id}/approve`, {
    data: { comment: '' },
    headers: H,
  });
  expect(again.status()).toBeGreaterThanOrEqual(400);
  expect(again.status()).toBeLessThan(500);

  // A notification's link that is not good any more: a clear message and the way to the inbox.
  await annPage.goto(`/approvals/${second.id}?t=bm90LWEtdG9rZW4.forged`);
  await expect(annPage.getByRole('heading', { name: 'This approval link cannot be used' })).toBeVisible();
  await expect(annPage.getByTestId('approval-link-error')).toBeVisible();
  await expect(annPage.getByTestId('approval-link-error')).not.toContainText('approval_link');
  expect(await seriousAxeFindings(annPage)).toEqual([]);
  await shot(annPage, 'approvals-link-invalid');
  // Signed out, the link goes through the sign-in page and still lands on its page.
  const fresh = await (await browser.newContext({ baseURL })).newPage();
  await fresh.goto(`/approvals/${second.id}?t=bm90LWEtdG9rZW4.forged`);
  await expect(fresh).toHaveURL(/\/auth\/login\?t=/);
  await fresh.getByLabel('Username or email').fill(ann.login);
  await fresh.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await fresh.getByRole('button', { name: 'Sign in', exact: true }).click();
  await expect(fresh.getByRole('heading', { name: 'This approval link cannot be used' })).toBeVisible();
  await expect(fresh).toHaveURL(/\/approvals\/link\?t=/);
  await fresh.context().close();
  await annPage.getByRole('link', { name: 'Open my approvals' }).click();
  await expect(annPage).toHaveURL(/\/approvals$/);
  await expect(annPage.getByText('Nothing waits for your approval')).toBeVisible();

  // A phone: the inbox, the project list and an approval fit 390 px.
  // Ann's session on a phone (signing in there would look for the user menu inside the closed drawer).
  const phone = await (
    await browser.newContext({
      baseURL,
      viewport: PHONE,
      isMobile: true,
      hasTouch: true,
      storageState: await annPage.context().storageState(),
    })
  ).newPage();
  const third = await apiPost<Task>(rickPage.request, `/api/project/${p}/tasks`, { template_id: tpl.id });
  expect(third.status).toBe('waiting_approval');
  await phone.goto('/approvals');
  await expect(phone.getByTestId('approval-row')).toHaveCount(1);
  await fitsPhone(phone);
  await shot(phone, 'approvals-phone-inbox');
  await phone.goto(`/project/${p}/approvals?status=all`);
  await expect(phone.getByTestId('approval-row')).toHaveCount(3);
  await fitsPhone(phone);
  await phone.goto(`/project/${p}/approvals`);
  await expect(phone.getByTestId('approval-row')).toHaveCount(1);
  await phone.getByTestId('approval-row').getByRole('link').first().click();
  await expect(phone.getByRole('button', { name: 'Approve', exact: true })).toBeVisible();
  await fitsPhone(phone);
  expect(await seriousAxeFindings(phone)).toEqual([]);
  await shot(phone, 'approvals-phone-detail');
  await phone.getByRole('button', { name: 'Approve', exact: true }).click();
  await waitForTask(page.request, p, third.id, /^success$/);
  await Promise.all([phone.context().close(), annPage.context().close(), rickPage.context().close()]);
});
