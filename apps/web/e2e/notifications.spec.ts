import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, test, type Page } from '@playwright/test';
import { apiPost, runToEnd } from './api-calls';
import { seriousAxeFindings } from './axe';
import { createProject, signIn, unique } from './helpers';
import { gitRepo } from './repo';
import { shot } from './shots';

const H = { 'x-gantry-request': '1' };

interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A local HTTP receiver standing in for a webhook's endpoint: it answers 200 and keeps what it got. */
async function startReceiver(): Promise<{ url: string; received: Received[]; close(): Promise<void> }> {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(200, { 'content-type': 'text/plain' }).end('thanks');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A Bash template whose task fails (exit 3), made through the API. */
async function failingTemplate(page: Page, p: number, name: string): Promise<number> {
  const post = async (url: string, data: unknown) => (await page.request.post(url, { data, headers: H })).json();
  const key = await post(`/api/project/${p}/keys`, { name: 'none', type: 'none' });
  const repo = await post(`/api/project/${p}/repositories`, {
    name: 'r',
    git_url: gitRepo({ 'deploy.sh': 'echo deploying; exit 3\n' }),
    ssh_key_id: key.id,
  });
  const env = await post(`/api/project/${p}/environment`, { name: 'e' });
  const tpl = await post(`/api/project/${p}/templates`, {
    name,
    app: 'bash',
    playbook: 'deploy.sh',
    repository_id: repo.id,
    environment_id: env.id,
  });
  return tpl.id as number;
}

/** Whether a body carries a valid `X-Gantry-Signature` (t=<unix>,v1=<HMAC-SHA256 of "t.body">) for the secret. */
function signed(r: Received, secret: string): boolean {
  const header = String(r.headers['x-gantry-signature'] ?? '');
  const t = /t=(\d+)/.exec(header)?.[1];
  const v1 = /v1=([0-9a-f]+)/.exec(header)?.[1];
  if (!t || !v1) return false;
  return crypto.createHmac('sha256', secret).update(`${t}.${r.body}`).digest('hex') === v1;
}

test('a webhook destination gets a test and a failed task; the log and the template page show it', async ({ page }) => {
  test.setTimeout(120_000);
  const receiver = await startReceiver();
  try {
    await signIn(page);
    const p = await createProject(page, unique('Alerts'));
    const templateId = await failingTemplate(page, p, 'Deploy the shop');

    await page.getByRole('link', { name: 'Notifications' }).click();
    await expect(page).toHaveURL(new RegExp(`/project/${p}/notifications$`));
    await expect(page.getByTestId('legacy-alerts')).toContainText('Project alerts (server channels)');
    // A new project's alert switch is off: the server-wide channels hear nothing of it.
    await expect(page.getByTestId('legacy-alerts-state')).toHaveText('Off for this project.');
    await expect(page.getByText('No destinations yet')).toBeVisible();

    // A webhook: nothing filled refuses with the fields' own words; the form keeps what was typed.
    await page.getByRole('button', { name: 'New destination' }).click();
    const dialog = page.getByRole('dialog', { name: 'New destination' });
    await expect(dialog.getByRole('combobox', { name: 'Type' })).toHaveText('Webhook');
    await dialog.getByRole('button', { name: 'Create' }).click();
    await expect(dialog.getByText('Name is required')).toBeVisible();
    await expect(dialog.getByText('URL is required')).toBeVisible();
    await dialog.getByRole('textbox', { name: 'Name' }).fill('Ops webhook');
    await dialog.locator('input[name="url"]').fill(receiver.url);
    await dialog.getByRole('button', { name: 'Generate' }).click();
    const secret = await dialog.locator('input[name="secret"]').inputValue();
    expect(secret).toMatch(/^[A-Za-z0-9]{32}$/);
    // The template language's help is shown literally, tags and all.
    await expect(dialog.getByText('{{ task.status }}', { exact: false })).toBeVisible();
    expect(await seriousAxeFindings(page, '[role="dialog"]')).toEqual([]);
    await shot(page, 'notifications-destination-dialog');
    await dialog.getByRole('button', { name: 'Create' }).click();
    await expect(dialog).toBeHidden();

    const row = page.getByTestId('destinations-table').getByRole('row', { name: /Ops webhook/ });
    await expect(row).toContainText(receiver.url);
    await expect(row).toContainText('Never');

    // Send test: the receiver's answer is shown, and what it got is signed with the secret.
    await row.getByRole('button', { name: 'Send test to Ops webhook' }).click();
    const outcome = page.getByTestId('test-outcome');
    await expect(outcome).toContainText('Ops webhook received the test');
    await expect(outcome).toContainText('HTTP 200');
    expect(receiver.received.length).toBeGreaterThan(0);
    expect(signed(receiver.received[0]!, secret)).toBe(true);
    await shot(page, 'notifications-destinations');

    // Editing never shows the secret: the field says it is stored.
    await row.getByRole('button', { name: 'Edit Ops webhook' }).click();
    const edit = page.getByRole('dialog', { name: 'Edit destination' });
    await expect(edit.locator('input[name="secret"]')).toHaveValue('');
    await expect(edit.getByText('Stored — leave empty to keep').first()).toBeVisible();
    await edit.getByRole('button', { name: 'Cancel' }).click();

    // A rule: failed tasks of the project go to the webhook.
    await page.getByRole('tab', { name: 'Rules' }).click();
    await expect(page.getByText('No rules yet')).toBeVisible();
    await page.getByRole('button', { name: 'New rule' }).click();
    const ruleDialog = page.getByRole('dialog', { name: 'New rule' });
    await expect(ruleDialog.getByRole('combobox', { name: 'Destination' })).toContainText('Ops webhook');
    await expect(ruleDialog.getByRole('checkbox', { name: 'Task failed' })).toBeChecked();
    // Long-running asks for its minutes only when chosen.
    await expect(ruleDialog.getByRole('textbox', { name: 'Long-running after (minutes)' })).toHaveCount(0);
    await ruleDialog.getByRole('checkbox', { name: 'Long-running task' }).check();
    await expect(ruleDialog.getByRole('textbox', { name: 'Long-running after (minutes)' })).toHaveValue('30');
    await ruleDialog.getByRole('checkbox', { name: 'Long-running task' }).uncheck();
    expect(await seriousAxeFindings(page, '[role="dialog"]')).toEqual([]);
    await shot(page, 'notifications-rule-dialog');
    await ruleDialog.getByRole('button', { name: 'Create' }).click();
    await expect(ruleDialog).toBeHidden();
    const ruleRow = page.getByTestId('rules-table').getByRole('row', { name: /Ops webhook/ });
    await expect(ruleRow).toContainText('Task failed');
    await expect(ruleRow).toContainText('Whole project');

    // A failing task: the receiver gets the event, and the delivery log shows it sent with HTTP 200.
    const before = receiver.received.length;
    await runToEnd(page.request, p, templateId);
    await expect
      .poll(() => receiver.received.slice(before).some((r) => r.body.includes('task_failed')), { timeout: 60_000 })
      .toBe(true);
    const delivered = receiver.received.slice(before).find((r) => r.body.includes('task_failed'))!;
    expect(signed(delivered, secret)).toBe(true);

    await page.getByRole('tab', { name: 'Delivery log' }).click();
    const log = page.getByTestId('delivery-log');
    const sent = log.getByRole('row').filter({ hasText: 'Task failed' });
    await expect(async () => {
      await page.getByRole('button', { name: 'Refresh' }).click();
      await expect(sent.first()).toContainText('Sent', { timeout: 2_000 });
    }).toPass({ timeout: 30_000 });
    await expect(sent.first()).toContainText('200');
    await expect(sent.first()).toContainText('Deploy the shop');
    expect(await seriousAxeFindings(page)).toEqual([]);
    await shot(page, 'notifications-delivery-log');

    // The template's page tells which rules apply to it.
    await page.goto(`/project/${p}/templates/${templateId}/details`);
    const section = page.getByTestId('template-notifications');
    await expect(section).toContainText('Ops webhook');
    await expect(section).toContainText('Webhook');
    await expect(section).toContainText('Task failed');
    await section.getByRole('link', { name: 'Manage notifications' }).click();
    await expect(page).toHaveURL(new RegExp(`/project/${p}/notifications$`));

    // On a phone every tab fits: the page never scrolls sideways (tables scroll inside their box).
    await page.setViewportSize({ width: 390, height: 844 });
    for (const tab of ['Destinations', 'Rules', 'Delivery log']) {
      await page.goto(`/project/${p}/notifications`);
      if (tab !== 'Destinations') await page.getByRole('tab', { name: tab }).click();
      await expect(page.getByRole('tab', { name: tab })).toHaveAttribute('aria-selected', 'true');
      await page.waitForLoadState('networkidle');
      const widths = await page.evaluate(() => [
        document.scrollingElement!.scrollWidth,
        document.scrollingElement!.clientWidth,
      ]);
      expect(widths[0], `${tab} scrolls sideways`).toBeLessThanOrEqual(widths[1]!);
      expect(await seriousAxeFindings(page)).toEqual([]);
      await shot(page, `notifications-phone-${tab.replace(/ /g, '-').toLowerCase()}`);
    }
  } finally {
    await receiver.close();
  }
});

test('admins keep server-wide destinations on the global Notifications page', async ({ page }) => {
  await signIn(page);
  await page.getByLabel('User menu').click();
  await page.getByRole('menuitem', { name: 'Notifications' }).click();
  await expect(page).toHaveURL(/\/notifications$/);
  await expect(page.getByRole('heading', { level: 1, name: 'Server-wide notifications' })).toBeVisible();
  await page.getByRole('button', { name: 'New destination' }).first().click();
  const dialog = page.getByRole('dialog', { name: 'New destination' });
  await dialog.getByRole('textbox', { name: 'Name' }).fill(unique('On-call'));
  await dialog.getByRole('combobox', { name: 'Type' }).click();
  await page.getByRole('option', { name: 'ntfy' }).click();
  await expect(page.getByRole('listbox')).toBeHidden();
  await dialog.getByRole('textbox', { name: 'Topic' }).fill('gantry-e2e');
  await dialog.getByRole('button', { name: 'Create' }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByTestId('destinations-table')).toContainText('ntfy.sh/gantry-e2e');
  // Global rules cover every project: no template or schedule to choose.
  await page.getByRole('tab', { name: 'Rules' }).click();
  await page.getByRole('button', { name: 'New rule' }).click();
  const rule = page.getByRole('dialog', { name: 'New rule' });
  await expect(rule.getByRole('combobox', { name: 'Applies to' })).toHaveCount(0);
  expect(await seriousAxeFindings(page, '[role="dialog"]')).toEqual([]);
  await rule.getByRole('button', { name: 'Cancel' }).click();
  expect(await seriousAxeFindings(page)).toEqual([]);
  await shot(page, 'notifications-global');
});

test('members who may not change the project read the notifications but get no buttons to change them', async ({
  page,
}) => {
  await signIn(page);
  const p = await createProject(page, unique('Readers'));
  const post = (url: string, data: unknown) => apiPost<{ id: number }>(page.request, url, data);
  const destination = await post(`/api/project/${p}/notification-destinations`, {
    name: 'Team chat',
    kind: 'slack',
    config: { url: 'https://hooks.slack.com/services/T000/B000/XXXXXXXX' },
  });
  await post(`/api/project/${p}/notification-rules`, { destination_id: destination.id, events: ['task_failed'] });
  const login = `reader${Date.now().toString(36)}`;
  const user = await post('/api/users', {
    name: 'Rita Reader',
    username: login,
    email: `${login}@example.com`,
    password: 'reader-pass-1',
  });
  await post(`/api/project/${p}/users`, { user_id: user.id, role: 'task_runner' });
  await page.getByLabel('User menu').click();
  await page.getByRole('menuitem', { name: 'Sign out' }).click();
  await signIn(page, login, 'reader-pass-1');

  await page.goto(`/project/${p}/notifications`);
  const row = page.getByTestId('destinations-table').getByRole('row', { name: /Team chat/ });
  // The key in the URL is never shown: only the host.
  await expect(row).toContainText('hooks.slack.com');
  await expect(row).not.toContainText('XXXXXXXX');
  await expect(page.getByRole('button', { name: 'New destination' })).toHaveCount(0);
  await expect(row.getByRole('button')).toHaveCount(0);
  await page.getByRole('tab', { name: 'Rules' }).click();
  await expect(page.getByTestId('rules-table')).toContainText('Task failed');
  await expect(page.getByRole('button', { name: 'New rule' })).toHaveCount(0);
  await expect(page.getByTestId('rules-table').getByRole('button')).toHaveCount(0);
});
