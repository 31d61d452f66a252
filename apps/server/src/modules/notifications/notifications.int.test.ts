import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { insertReturningId } from '../../db/portable.js';
import { commitFiles, gitRepo } from '../../test/git-fixture.js';
import {
  addMember,
  engines,
  uniq,
  useTestApp,
  signedInUser,
  type Caller,
  type TestContext,
} from '../../test/harness.js';
import { closedPort, startHttpReceiver, type ReceivedRequest } from '../../test/http-receiver.js';
import { startSmtpReceiver } from '../../test/smtp-receiver.js';
import { runTask, setupTemplate, waitForTask } from '../../test/tasks.js';
import type { NotifyOutcome } from './notifications.service.js';

// Receivers shared by every engine; each test tells its messages apart by its unique project name.
const smtp = await startSmtpReceiver();
const http = await startHttpReceiver((path) => (path.startsWith('/broken/') ? 500 : 200));
const deadPort = await closedPort();
afterAll(async () => {
  await smtp.close();
  await http.close();
});

const TG_TOKEN = '4242:tg-secret-token';
const channelsEnv = {
  GANTRY_WEB_HOST: 'https://gantry.test',
  GANTRY_EMAIL_ALERT: 'true',
  GANTRY_EMAIL_HOST: '127.0.0.1',
  GANTRY_EMAIL_PORT: String(smtp.port),
  GANTRY_EMAIL_USERNAME: 'mailer',
  GANTRY_EMAIL_PASSWORD: 'mail-secret-pw',
  GANTRY_EMAIL_SENDER: 'gantry@test.local',
  GANTRY_SLACK_URL: `${http.url}/slack/slack-secret-path`,
  GANTRY_TELEGRAM_TOKEN: TG_TOKEN,
  GANTRY_TELEGRAM_CHAT: '-100default',
  GANTRY_TELEGRAM_API: `${http.url}/tg`,
  GANTRY_TEAMS_URL: `${http.url}/teams/teams-secret-path`,
  GANTRY_WEBHOOK_URL: `${http.url}/hook/hook-secret-path`,
};

const SCRIPTS = { 'ok.sh': 'echo fine\n', 'fail.sh': 'echo broken\nexit 2\n' };

/** Outcomes of the notifications the app dispatches from now on; `of` waits for one. */
function watchOutcomes(ctx: TestContext) {
  const seen: NotifyOutcome[] = [];
  const off = ctx.app.services.notifications.onSettled((o) => seen.push(o));
  return {
    off,
    seen: () => seen,
    async of(taskId: number, status: string): Promise<NotifyOutcome> {
      const until = Date.now() + 30_000;
      for (;;) {
        const found = seen.find((o) => o.taskId === taskId && o.status === status);
        if (found) return found;
        if (Date.now() > until) throw new Error(`no notification outcome for task ${taskId} (${status})`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
  };
}

async function alertProject(c: Caller, alert = true): Promise<{ id: number; name: string }> {
  const name = uniq('notify');
  const res = await c.post('/api/projects', { name, alert });
  if (res.statusCode !== 201) throw new Error(res.body);
  return { id: res.json<{ id: number }>().id, name };
}

async function member(ctx: TestContext, projectId: number, alert: boolean, name: string) {
  const username = uniq(name);
  const row = await ctx.app.services.users.create({
    username,
    name,
    email: `${username}@example.com`,
    admin: false,
    external: false,
    alert,
  });
  await addMember(ctx, projectId, row.id, 'task_runner');
  return row;
}

/** What each channel received about one project. */
function received(projectName: string) {
  const mentions = (r: ReceivedRequest) => JSON.stringify(r.json).includes(projectName);
  const on = (prefix: string) => http.requests.filter((r) => r.path.startsWith(prefix) && mentions(r));
  return {
    mails: smtp.mails.filter((m) => m.data.includes(projectName)),
    slack: on('/slack/'),
    teams: on('/teams/'),
    telegram: on('/tg/'),
    webhook: on('/hook/'),
  };
}

describe.each(engines)('notifications ($name)', (engine) => {
  const t = useTestApp(engine, channelsEnv);

  it('tells every channel when a bash task succeeds and when one fails; email only to members with alert on', async () => {
    const outcomes = watchOutcomes(t());
    const admin = await signedInUser(t(), { admin: true });
    const project = await alertProject(admin);
    const alice = await member(t(), project.id, true, 'Alice');
    const bob = await member(t(), project.id, false, 'Bob');
    const repo = gitRepo(SCRIPTS);
    const ok = await setupTemplate(admin, project.id, repo, { name: 'Deploy web', app: 'bash', playbook: 'ok.sh' });

    const id = await runTask(admin, project.id, { template_id: ok.templateId });
    expect((await waitForTask(admin, project.id, id)).status).toBe('success');
    expect((await outcomes.of(id, 'success')).channels).toEqual({
      email: 'sent',
      slack: 'sent',
      telegram: 'sent',
      teams: 'sent',
      webhook: 'sent',
    });

    const link = `https://gantry.test/project/${project.id}/templates/${ok.templateId}?t=${id}`;
    const title = `[${project.name}] Task #${id} of Deploy web succeeded`;
    const got = received(project.name);
    expect(got.mails).toHaveLength(1);
    expect(got.mails[0]).toMatchObject({ from: 'gantry@test.local', to: [alice.email], user: 'mailer' });
    expect(got.mails[0]!.data).toContain(`Subject: ${title}`);
    expect(got.mails[0]!.data).toContain(link);
    expect(smtp.mails.some((m) => m.to.includes(bob.email))).toBe(false);
    expect(smtp.logins).toContainEqual({ user: 'mailer', password: 'mail-secret-pw' });

    expect(got.slack).toHaveLength(1);
    expect(got.slack[0]!.contentType).toMatch(/application\/json/);
    expect(got.slack[0]!.json).toEqual({ text: expect.stringContaining(title) });
    expect((got.slack[0]!.json as { text: string }).text).toContain(link);

    expect(got.teams).toHaveLength(1);
    expect(got.teams[0]!.json).toEqual({
      '@type': 'MessageCard',
      '@context': 'http://schema.org/extensions',
      summary: title,
      title,
      text: expect.stringContaining(link),
      themeColor: '2EB886',
    });

    expect(got.telegram).toHaveLength(1);
    expect(got.telegram[0]!.path).toBe(`/tg/bot${TG_TOKEN}/sendMessage`);
    expect(got.telegram[0]!.json).toMatchObject({ chat_id: '-100default', text: expect.stringContaining(title) });
    expect(got.telegram[0]!.json).not.toHaveProperty('parse_mode');

    expect(got.webhook).toHaveLength(1);
    expect(got.webhook[0]!.json).toEqual({
      event: 'task_finished',
      project_id: project.id,
      project_name: project.name,
      template_id: ok.templateId,
      template_name: 'Deploy web',
      task_id: id,
      status: 'success',
      author: `Name ${admin.username}`,
      url: link,
      message: expect.stringContaining(title),
    });

    // The project's own chat overrides the default one.
    const put = await admin.put(`/api/project/${project.id}`, {
      name: project.name,
      alert: true,
      alert_chat: '-100project',
    });
    expect(put.statusCode).toBe(204);
    const fail = await setupTemplate(admin, project.id, repo, { name: 'Break it', app: 'bash', playbook: 'fail.sh' });
    const failedId = await runTask(admin, project.id, { template_id: fail.templateId });
    expect((await waitForTask(admin, project.id, failedId)).status).toBe('error');
    await outcomes.of(failedId, 'error');
    const after = received(`[${project.name}] Task #${failedId} of Break it failed`);
    expect(after.mails.map((m) => m.to)).toEqual([[alice.email]]);
    expect(after.slack).toHaveLength(1);
    expect(after.teams[0]!.json).toMatchObject({ themeColor: 'D9534F' });
    expect(after.telegram.map((r) => r.json)).toEqual([expect.objectContaining({ chat_id: '-100project' })]);
    expect(after.webhook.map((r) => r.json)).toEqual([
      expect.objectContaining({
        event: 'task_finished',
        status: 'error',
        task_id: failedId,
        template_name: 'Break it',
      }),
    ]);
    outcomes.off();
  });

  it('tells of tasks that end without a run: stopped while queued, failed by a server restart', async () => {
    const outcomes = watchOutcomes(t());
    const admin = await signedInUser(t(), { admin: true });
    const name = uniq('notify');
    const created = await admin.post('/api/projects', { name, alert: true, max_parallel_tasks: 1 });
    const project = { id: created.json<{ id: number }>().id, name };
    const repo = gitRepo({ ...SCRIPTS, 'long.sh': 'echo started\nwhile true; do sleep 0.1; done\n' });
    const long = await setupTemplate(admin, project.id, repo, { name: 'Long', app: 'bash', playbook: 'long.sh' });

    // The project runs one task at a time: the second one waits, and is stopped there.
    const first = await runTask(admin, project.id, { template_id: long.templateId });
    await waitForTask(admin, project.id, first, ['running']);
    const queued = await runTask(admin, project.id, { template_id: long.templateId });
    expect((await admin.get(`/api/project/${project.id}/tasks/${queued}`)).json()).toMatchObject({ status: 'waiting' });
    expect((await admin.post(`/api/project/${project.id}/tasks/${queued}/stop`, {})).statusCode).toBe(204);
    expect((await outcomes.of(queued, 'stopped')).channels).toMatchObject({ webhook: 'sent', slack: 'sent' });
    expect(received(project.name).webhook.map((r) => r.json)).toContainEqual(expect.objectContaining({ task_id: queued, status: 'stopped' }));
    expect((await admin.post(`/api/project/${project.id}/tasks/${first}/stop`, { force: true })).statusCode).toBe(204);
    expect((await waitForTask(admin, project.id, first)).status).toBe('stopped');

    // A row as a crashed server leaves it: this node's, still running.
    const nodeId = fs.readFileSync(path.join(t().config.dataDir, 'node.id'), 'utf8').trim();
    const orphan = await insertReturningId(t().db.db, 'task', { project_id: project.id, template_id: long.templateId, status: 'running', node_id: nodeId, message: '', commit_message: '', environment: '{}', params: '{}', created: new Date().toISOString() });
    expect(await t().app.services.tasks.failOrphans()).toBe(1);
    expect((await outcomes.of(orphan, 'error')).channels).toMatchObject({ webhook: 'sent' });
    expect(received(project.name).webhook.map((r) => r.json)).toContainEqual(expect.objectContaining({ task_id: orphan, status: 'error' }));
    outcomes.off();
  });

  it('keeps successes quiet for a template that suppresses them, but not failures; a project with alert off hears nothing', async () => {
    const outcomes = watchOutcomes(t());
    const admin = await signedInUser(t(), { admin: true });
    const project = await alertProject(admin);
    await member(t(), project.id, true, 'Dana');
    const repo = gitRepo(SCRIPTS);
    const quietOk = await setupTemplate(admin, project.id, repo, {
      name: 'Quiet ok',
      app: 'bash',
      playbook: 'ok.sh',
      suppress_success_alerts: true,
    });
    const quietFail = await setupTemplate(admin, project.id, repo, {
      name: 'Quiet fail',
      app: 'bash',
      playbook: 'fail.sh',
      suppress_success_alerts: true,
    });

    const okId = await runTask(admin, project.id, { template_id: quietOk.templateId });
    expect((await waitForTask(admin, project.id, okId)).status).toBe('success');
    expect(await outcomes.of(okId, 'success')).toMatchObject({ skipped: 'success suppressed', channels: {} });
    expect(received(project.name)).toEqual({ mails: [], slack: [], teams: [], telegram: [], webhook: [] });

    const failId = await runTask(admin, project.id, { template_id: quietFail.templateId });
    expect((await waitForTask(admin, project.id, failId)).status).toBe('error');
    expect((await outcomes.of(failId, 'error')).skipped).toBeNull();
    const got = received(project.name);
    for (const list of Object.values(got)) expect(list).toHaveLength(1);
    expect(got.webhook[0]!.json).toMatchObject({ status: 'error', template_name: 'Quiet fail' });

    const silent = await alertProject(admin, false);
    await member(t(), silent.id, true, 'Erin');
    const s = await setupTemplate(admin, silent.id, repo, { app: 'bash', playbook: 'fail.sh' });
    const silentId = await runTask(admin, silent.id, { template_id: s.templateId });
    expect((await waitForTask(admin, silent.id, silentId)).status).toBe('error');
    expect(await outcomes.of(silentId, 'error')).toMatchObject({ skipped: 'project alert off', channels: {} });
    expect(received(silent.name)).toEqual({ mails: [], slack: [], teams: [], telegram: [], webhook: [] });
    outcomes.off();
  });

  it('tells when a terraform task waits for confirmation, and not when it is then rejected', async () => {
    const outcomes = watchOutcomes(t());
    const admin = await signedInUser(t(), { admin: true });
    const project = await alertProject(admin);
    const repo = gitRepo({ 'main.tf': 'resource "terraform_data" "x" {\n  input = "y"\n}\n' });
    const s = await setupTemplate(admin, project.id, repo, { name: 'Infra', app: 'terraform', playbook: '' });
    const id = await runTask(admin, project.id, { template_id: s.templateId });
    await waitForTask(admin, project.id, id, ['waiting_confirmation']);
    expect((await outcomes.of(id, 'waiting_confirmation')).channels).toMatchObject({
      slack: 'sent',
      webhook: 'sent',
      teams: 'sent',
      telegram: 'sent',
    });
    const waiting = received(project.name);
    expect(waiting.webhook.map((r) => r.json)).toEqual([
      expect.objectContaining({
        event: 'task_waiting_confirmation',
        status: 'waiting_confirmation',
        task_id: id,
        url: `https://gantry.test/project/${project.id}/templates/${s.templateId}?t=${id}`,
      }),
    ]);
    expect((waiting.slack[0]!.json as { text: string }).text).toContain(
      `Task #${id} of Infra is waiting for confirmation`,
    );
    expect(waiting.teams[0]!.json).toMatchObject({ themeColor: 'F0AD4E' });
    // The plan's counts travel with it.
    expect((waiting.slack[0]!.json as { text: string }).text).toContain(
      'Plan: 1 to add, 0 to change, 0 to replace, 0 to destroy',
    );

    expect((await admin.post(`/api/project/${project.id}/tasks/${id}/reject`)).statusCode).toBe(204);
    expect((await waitForTask(admin, project.id, id)).status).toBe('rejected');
    expect((await outcomes.of(id, 'rejected')).skipped).toBe('status');
    expect(received(project.name).webhook).toHaveLength(1);
    outcomes.off();
  });

  it('tells of drift once: a drifted finding, not the same one found again', async () => {
    const outcomes = watchOutcomes(t());
    const admin = await signedInUser(t(), { admin: true });
    const project = await alertProject(admin);
    const tf = (input: string) => `resource "terraform_data" "x" {\n  input = "${input}"\n}\n`;
    const repo = gitRepo({ 'main.tf': tf('a') });
    const s = await setupTemplate(admin, project.id, repo, {
      name: 'Net',
      app: 'terraform',
      playbook: '',
      task_params: { allow_auto_approve: true },
    });
    const applied = await runTask(admin, project.id, { template_id: s.templateId, params: { auto_approve: true } });
    expect((await waitForTask(admin, project.id, applied)).status).toBe('success');
    commitFiles(repo, { 'main.tf': tf('b') });
    const check = await runTask(admin, project.id, { template_id: s.templateId, params: { drift_check: {} } });
    expect((await outcomes.of(check, 'drifted')).channels).toMatchObject({ slack: 'sent', webhook: 'sent' });
    const drift = received(project.name).webhook.map((r) => r.json as { event: string; message: string });
    const told = drift.filter((m) => m.event === 'drift');
    expect(told).toHaveLength(1);
    expect(told[0]!.message).toContain('Drift found in Net');
    expect(told[0]!.message).toContain('Changes: 0 to add, 1 to change, 0 to replace, 0 to destroy');
    await waitForTask(admin, project.id, check);
    const again = await runTask(admin, project.id, { template_id: s.templateId, params: { drift_check: {} } });
    await waitForTask(admin, project.id, again);
    await outcomes.of(again, 'success');
    expect(outcomes.seen().some((o) => o.taskId === again && o.status === 'drifted')).toBe(false);
    outcomes.off();
  });
});

const failingEnv = {
  GANTRY_EMAIL_ALERT: 'true',
  GANTRY_EMAIL_HOST: '127.0.0.1',
  GANTRY_EMAIL_PORT: String(deadPort),
  GANTRY_EMAIL_PASSWORD: 'mail-secret-pw',
  GANTRY_SLACK_URL: `${http.url}/broken/slack-secret-path`,
  GANTRY_TELEGRAM_TOKEN: TG_TOKEN,
  GANTRY_TELEGRAM_CHAT: '-100default',
  GANTRY_TELEGRAM_API: `${http.url}/broken/tg`,
  GANTRY_TEAMS_URL: `http://127.0.0.1:${deadPort}/teams-secret-path`,
  GANTRY_WEBHOOK_URL: `${http.url}/broken/hook-secret-path`,
};

describe.each(engines)('notifications that fail ($name)', (engine) => {
  const t = useTestApp(engine, failingEnv);

  it('leave the task as it ended and an activity line per channel without a secret', async () => {
    const outcomes = watchOutcomes(t());
    const admin = await signedInUser(t(), { admin: true });
    const project = await alertProject(admin);
    await member(t(), project.id, true, 'Fay');
    const s = await setupTemplate(admin, project.id, gitRepo(SCRIPTS), { app: 'bash', playbook: 'ok.sh' });
    const id = await runTask(admin, project.id, { template_id: s.templateId });
    expect((await waitForTask(admin, project.id, id)).status).toBe('success');
    expect((await outcomes.of(id, 'success')).channels).toEqual({
      email: 'failed',
      slack: 'failed',
      telegram: 'failed',
      teams: 'failed',
      webhook: 'failed',
    });

    const events = (await admin.get(`/api/project/${project.id}/events/last`))
      .json<Array<{ description: string }>>()
      .map((e) => e.description);
    expect(events).toContain(`Task #${id} finished: success`);
    const failures = events.filter((d) => d.startsWith('Notification via'));
    expect(failures.sort()).toEqual([
      expect.stringMatching(/^Notification via email failed: 1 of 1 emails not sent/),
      expect.stringMatching(/^Notification via slack failed: HTTP 500/),
      expect.stringMatching(/^Notification via teams failed: request failed \(ECONNREFUSED\)$/),
      expect.stringMatching(/^Notification via telegram failed: HTTP 500/),
      expect.stringMatching(/^Notification via webhook failed: HTTP 500/),
    ]);
    for (const secret of ['secret-path', 'tg-secret-token', 'mail-secret-pw', http.url])
      expect(failures.join('\n')).not.toContain(secret);
    outcomes.off();
  });
});
