// Approvals in the console (issue 24): a template's approval policy set through its form, tasks
// started by another user waiting in `waiting_approval`, the approver's inbox badge, approve with
// a comment (the task then runs to success) and reject (the task ends rejected), the one-time
// link landing with a bad token, and axe + phone checks on the new pages.
import { expect, test, type APIRequestContext, type Browser, type Page } from '@playwright/test';
import { apiGet, apiPost, scriptsRepo } from './api-calls';
import { seriousAxeFindings } from './axe';
import { createProject, signIn, unique } from './helpers';
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
  const { repoId, envId } = await scriptsRepo(page.request, p, { 'deploy.sh': 'echo "deploying"\necho "deployed"\n' });
  const tpl = await apiPost<{ id: number }>(page.request, `/api/project/${p}/templates`, {
    name: 'Deploy prod',
    app: 'bash',
    playbook: 'deploy.sh',
    repository_id: repoId,
    environment_id: envId,
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
  await expect(rickPage).toHaveURL(/[?&]t=\d+/);
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

interface RunNode {
  id: string;
  status: string;
  task_ids: number[];
  approval_id: number | null;
  child_run_id: number | null;
}

test('an approval node holds a workflow run until approved from the inbox, and a task shows its approval votes', async ({
  page,
  browser,
}, info) => {
  test.setTimeout(240_000);
  const baseURL = info.project.use.baseURL!;
  await signIn(page);
  const p = await createProject(page, unique('Gates'));
  const { repoId, envId } = await scriptsRepo(page.request, p, {
    'deploy.sh': 'echo "deployed"\n',
    'notify.sh': 'echo "notified"\n',
  });
  const ann = await member(page.request, p, 'gann', 'Ann Gatekeeper', 'guest');
  const bob = await member(page.request, p, 'gbob', 'Bob Gatekeeper', 'guest');
  const template = (name: string, playbook: string, policy: object | null) =>
    apiPost<{ id: number }>(page.request, `/api/project/${p}/templates`, {
      name,
      app: 'bash',
      playbook,
      repository_id: repoId,
      environment_id: envId,
      approval_policy: policy,
    });
  // Deploy's own policy: both Ann and Bob approve each of its tasks.
  const deploy = await template('Deploy', 'deploy.sh', {
    approvers: { users: [ann.id, bob.id] },
    required_approvals: 2,
  });
  const notify = await template('Notify', 'notify.sh', null);
  const child = await apiPost<{ id: number }>(page.request, `/api/project/${p}/workflows`, {
    name: 'Tell the team',
    nodes: [{ id: 'notify', type: 'template', template_id: notify.id }],
  });
  const wf = await apiPost<{ id: number }>(page.request, `/api/project/${p}/workflows`, {
    name: 'Release',
    nodes: [
      { id: 'gate', type: 'approval', approvers: { users: [ann.id] } },
      { id: 'deploy', type: 'template', template_id: deploy.id },
      { id: 'announce', type: 'workflow', workflow_id: child.id },
    ],
    edges: [
      { from: 'gate', to: 'deploy', on: 'success' },
      { from: 'deploy', to: 'announce', on: 'success' },
    ],
  });
  const run = await apiPost<{ id: number }>(page.request, `/api/project/${p}/workflows/${wf.id}/runs`);
  const runUrl = `/project/${p}/workflows/${wf.id}/runs/${run.id}`;
  const runNode = async (id: string) =>
    (await apiGet<{ nodes: RunNode[] }>(page.request, `/api${runUrl}`)).nodes.find((n) => n.id === id)!;

  // The run waits at the gate; its node links to the approval.
  await page.goto(runUrl);
  const table = page.getByRole('table', { name: 'Nodes' });
  const nodeStatus = (id: string) => table.locator(`[data-node="${id}"] [data-testid="node-status"]`);
  await expect(nodeStatus('gate')).toHaveAttribute('data-status', 'waiting_approval', { timeout: 30_000 });
  const gateLink = table.getByTestId('node-approval-gate');
  await expect(gateLink).toHaveAttribute('href', new RegExp(`/project/${p}/approvals/\\d+$`));
  await expect(gateLink).toHaveAccessibleName('Open approval');
  await expect(gateLink).toHaveAccessibleDescription('Open the approval of step gate');
  await expect(nodeStatus('deploy')).toHaveAttribute('data-status', 'pending');

  // Ann approves from her inbox, through the approval's page, by keyboard.
  const annPage = await asUser(browser, baseURL, ann.login);
  await annPage.goto('/approvals');
  const row = annPage.getByTestId('approval-row');
  await expect(row).toHaveCount(1);
  await row.getByRole('link').first().focus();
  await annPage.keyboard.press('Enter');
  await expect(annPage).toHaveURL(new RegExp(`/project/${p}/approvals/\\d+$`));
  expect(new URL(annPage.url()).pathname).toBe(await gateLink.getAttribute('href'));
  await annPage.getByRole('textbox', { name: 'Comment' }).fill('Release window is open');
  await annPage.getByRole('button', { name: 'Approve', exact: true }).focus();
  await annPage.keyboard.press('Enter');
  await expect(annPage.getByText('Your approval was recorded')).toBeVisible();

  // The run goes on: the deploy task now waits for its template's approval, linked from its node.
  await expect(nodeStatus('gate')).toHaveAttribute('data-status', 'success', { timeout: 30_000 });
  await expect(nodeStatus('deploy')).toHaveAttribute('data-status', 'waiting_approval', { timeout: 30_000 });
  const deployNode = await runNode('deploy');
  const deployLink = table.getByTestId('node-approval-deploy');
  await expect(deployLink).toHaveAttribute('href', `/project/${p}/approvals/${deployNode.approval_id}`);
  const taskId = deployNode.task_ids[0]!;
  await apiPost(annPage.request, `/api/project/${p}/approvals/${deployNode.approval_id}/approve`, {
    comment: 'Change list checked',
  });

  // The task's log says what it waits for: 1 of 2, Ann's vote and comment, the way to decide.
  await table.getByRole('link', { name: `Log of try 1: task #${taskId}` }).focus();
  await page.keyboard.press('Enter');
  const dialog = page.getByRole('dialog', { name: new RegExp(`^Task #${taskId}`) });
  const approval = dialog.getByTestId('task-approval');
  await expect(approval.getByTestId('task-approval-status')).toHaveAttribute('data-status', 'pending');
  await expect(approval.getByTestId('task-approval-count')).toHaveText('1 of 2 approvals');
  await expect(approval.getByTestId('task-approval-vote')).toHaveCount(1);
  await expect(approval.getByTestId('task-approval-vote')).toContainText(`${ann.login} Approved`);
  await expect(approval.getByTestId('task-approval-vote')).toContainText('Change list checked');
  expect(await seriousAxeFindings(page, '[role="dialog"]')).toEqual([]);
  await shot(page, 'approvals-task-pending');

  // Bob approves: the task runs, the dialog shows both votes, the run finishes through its nested workflow.
  const bobPage = await asUser(browser, baseURL, bob.login);
  await bobPage.goto(`/project/${p}/approvals/${deployNode.approval_id}`);
  await bobPage.getByRole('textbox', { name: 'Comment' }).fill('Go');
  await bobPage.getByRole('button', { name: 'Approve', exact: true }).click();
  await expect(bobPage.getByText('Your approval was recorded')).toBeVisible();
  await waitForTask(page.request, p, taskId, /^success$/);
  await expect(approval.getByTestId('task-approval-status')).toHaveAttribute('data-status', 'approved', {
    timeout: 30_000,
  });
  await expect(approval.getByTestId('task-approval-count')).toHaveText('2 of 2 approvals');
  await expect(approval.getByTestId('task-approval-vote')).toHaveCount(2);
  await expect(approval.getByTestId('task-approval-vote').nth(1)).toContainText(`${bob.login} Approved`);
  await expect(dialog.getByText('deployed', { exact: true })).toBeVisible();
  expect(await seriousAxeFindings(page, '[role="dialog"]')).toEqual([]);
  await shot(page, 'approvals-task-approved');
  // Its link, by keyboard, opens the approval's page (the dialog closes on the way).
  const open = approval.getByRole('link', { name: `Open approval #${deployNode.approval_id}` });
  await open.focus();
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(new RegExp(`/project/${p}/approvals/${deployNode.approval_id}$`));
  await expect(page.getByTestId('approval-vote')).toHaveCount(2);

  // The finished run: every node succeeded; the nested one leads to its own run.
  await page.goto(runUrl);
  await expect(page.getByTestId('run-status').first()).toHaveAttribute('data-status', 'success', { timeout: 60_000 });
  const nested = await runNode('announce');
  const childLink = table.getByRole('link', { name: `Nested run #${nested.child_run_id}` });
  await expect(table.getByTestId('node-approval-deploy')).toBeVisible();
  expect(await seriousAxeFindings(page)).toEqual([]);
  await shot(page, 'approvals-run-finished');
  await childLink.focus();
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(new RegExp(`/project/${p}/workflows/${child.id}/runs/${nested.child_run_id}$`));
  await expect(page.getByRole('heading', { name: new RegExp(`Tell the team`) })).toBeVisible();

  // A phone: the run's nodes and the task's approval fit 390 px.
  const phone = await (
    await browser.newContext({
      baseURL,
      viewport: PHONE,
      isMobile: true,
      hasTouch: true,
      storageState: await page.context().storageState(),
    })
  ).newPage();
  await phone.goto(runUrl);
  await expect(phone.getByRole('table', { name: 'Nodes' }).getByTestId('node-approval-gate')).toBeVisible();
  await fitsPhone(phone);
  expect(await seriousAxeFindings(phone)).toEqual([]);
  await shot(phone, 'approvals-phone-run');
  await phone.goto(`${runUrl}?t=${taskId}`);
  const phoneApproval = phone.getByRole('dialog').getByTestId('task-approval');
  await expect(phoneApproval.getByTestId('task-approval-vote')).toHaveCount(2);
  await fitsPhone(phone);
  expect(await seriousAxeFindings(phone, '[role="dialog"]')).toEqual([]);
  await shot(phone, 'approvals-phone-task');
  await Promise.all([phone.context().close(), annPage.context().close(), bobPage.context().close()]);
});
