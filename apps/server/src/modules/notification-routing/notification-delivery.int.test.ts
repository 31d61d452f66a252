import { afterAll, describe, expect, it } from 'vitest';
import { insertReturningId } from '../../db/portable.js';
import { gitRepo } from '../../test/git-fixture.js';
import {
  addMember,
  engines,
  signedInUser,
  uniq,
  useTestApp,
  type Caller,
  type TestContext,
} from '../../test/harness.js';
import { startHttpReceiver, type ReceivedRequest } from '../../test/http-receiver.js';
import { runTask, setupTemplate, waitForTask } from '../../test/tasks.js';
import { buildApprovalMessage } from '../notifications/notification-message.js';
import { verifySignature } from './delivery/signature.js';
import type { NotificationPayload } from './notification-payload.js';

const http = await startHttpReceiver((path) => (path.startsWith('/down/') ? 503 : 200));
afterAll(() => http.close());

const SECRET = 'route-signing-secret-42';
const WEB_HOST = 'https://gantry.test';
const SCRIPTS = { 'ok.sh': 'echo fine\n', 'fail.sh': 'echo broken\nexit 2\n' };

/** Waits for the receiver to have `count` requests on `path`, and answers them. */
async function receivedOn(path: string, count = 1): Promise<ReceivedRequest[]> {
  const until = Date.now() + 30_000;
  for (;;) {
    const got = http.requests.filter((r) => r.path === path);
    if (got.length >= count) return got;
    if (Date.now() > until) throw new Error(`no request on ${path} (${got.length}/${count})`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe.each(engines)('notification routing delivery ($name)', (engine) => {
  const t = useTestApp(engine, { GANTRY_FETCH_ALLOWED_HOSTS: '127.0.0.1', GANTRY_WEB_HOST: WEB_HOST });

  /** A project, a bash template pair, and a signed webhook destination whose path names the project. */
  async function setup() {
    const admin = await signedInUser(t(), { admin: true });
    const name = uniq('route');
    const projectId = (await admin.post('/api/projects', { name })).json<{ id: number }>().id;
    const repo = gitRepo(SCRIPTS);
    const fail = await setupTemplate(admin, projectId, repo, { name: 'Deploy', playbook: 'fail.sh' });
    const path = `/hook/${name}`;
    const dest = await destination(admin, projectId, path);
    return { admin, projectId, name, fail, path, dest, repo };
  }

  async function destination(c: Caller, projectId: number, path: string): Promise<number> {
    const res = await c.post(`/api/project/${projectId}/notification-destinations`, {
      name: 'Receiver',
      kind: 'webhook',
      config: { url: `${http.url}${path}`, secret: SECRET },
    });
    if (res.statusCode !== 201) throw new Error(res.body);
    return res.json<{ id: number }>().id;
  }

  async function rule(c: Caller, projectId: number, body: Record<string, unknown>): Promise<number> {
    const res = await c.post(`/api/project/${projectId}/notification-rules`, body);
    if (res.statusCode !== 201) throw new Error(res.body);
    return res.json<{ id: number }>().id;
  }

  it('delivers a failing task to a webhook, signed, with the v1 body; then the fix, and not a plain success', async () => {
    const s = await setup();
    await rule(s.admin, s.projectId, { destination_id: s.dest, events: ['task_failed', 'task_fixed'] });

    const failed = await runTask(s.admin, s.projectId, { template_id: s.fail.templateId });
    expect((await waitForTask(s.admin, s.projectId, failed)).status).toBe('error');
    const [req] = await receivedOn(s.path);
    const header = String(req!.headers['x-gantry-signature']);
    expect(verifySignature(SECRET, header, req!.body, Math.floor(Date.now() / 1000))).toBe(true);
    expect(verifySignature('another-secret-of-16+', header, req!.body, Math.floor(Date.now() / 1000))).toBe(false);
    const body = req!.json as NotificationPayload;
    expect(body).toMatchObject({
      schema: 'gantry.notification.v1',
      event: 'task_failed',
      project: { id: s.projectId, name: s.name },
      template: { id: s.fail.templateId, name: 'Deploy' },
      task: {
        id: failed,
        status: 'error',
        author: expect.stringContaining('Name '),
        url: `${WEB_HOST}/project/${s.projectId}/templates/${s.fail.templateId}?t=${failed}`,
      },
      message: { url: `${WEB_HOST}/project/${s.projectId}/templates/${s.fail.templateId}?t=${failed}` },
    });
    expect(body.task!.start).toEqual(expect.any(String));
    expect(body.task!.end).toEqual(expect.any(String));
    expect(body.task!.created).toEqual(expect.any(String));

    // The same template succeeding now: `task_fixed`.
    await t().db.db.updateTable('template').set({ playbook: 'ok.sh' }).where('id', '=', s.fail.templateId).execute();
    const fixed = await runTask(s.admin, s.projectId, { template_id: s.fail.templateId });
    expect((await waitForTask(s.admin, s.projectId, fixed)).status).toBe('success');
    const both = await receivedOn(s.path, 2);
    expect(both[1]!.json).toMatchObject({ event: 'task_fixed', task: { id: fixed, status: 'success' } });

    // Another success is no fix, and the rule does not ask for plain successes.
    const again = await runTask(s.admin, s.projectId, { template_id: s.fail.templateId });
    expect((await waitForTask(s.admin, s.projectId, again)).status).toBe('success');
    expect(
      await t().app.services.notificationRouting.router.route({ type: 'task', taskId: again, status: 'success' }),
    ).toBe(0);
    expect(await deliveryRows(t(), again)).toEqual([]);

    const log = await s.admin.get(`/api/project/${s.projectId}/notification-destinations/${s.dest}/deliveries`);
    expect(log.json()).toMatchObject([
      { event: 'task_fixed', task_id: fixed, status: 'sent', attempts: 1, http_status: 200 },
      { event: 'task_failed', task_id: failed, status: 'sent', attempts: 1, http_status: 200 },
    ]);
    expect(log.body).not.toContain(SECRET);
    const one = await s.admin.get(`/api/project/${s.projectId}/notification-destinations/${s.dest}/deliveries?limit=1`);
    expect(one.json()).toHaveLength(1);
    const listed = (await s.admin.get(`/api/project/${s.projectId}/notification-destinations/${s.dest}`)).json();
    expect(listed.last_delivery).toMatchObject({ status: 'sent', error: null });
  });

  it('answers the receiver’s reply to "Send test", also a refusal', async () => {
    const s = await setup();
    const ok = await s.admin.post(`/api/project/${s.projectId}/notification-destinations/${s.dest}/test`);
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toMatchObject({ ok: true, http_status: 200, error: null });
    const [req] = await receivedOn(s.path);
    expect(req!.json).toMatchObject({ event: 'test', project: { id: s.projectId, name: s.name } });

    const down = await destination(s.admin, s.projectId, `/down/${s.name}`);
    const refused = await s.admin.post(`/api/project/${s.projectId}/notification-destinations/${down}/test`);
    expect(refused.statusCode).toBe(200);
    expect(refused.json()).toMatchObject({ ok: false, http_status: 503 });
    expect(refused.body).not.toContain(SECRET);
  });

  it('tells of a task running longer than its rule’s minutes, once, when the sweep sees it', async () => {
    const s = await setup();
    await rule(s.admin, s.projectId, { destination_id: s.dest, events: ['long_running'], long_running_minutes: 1 });
    const now = new Date();
    const recent = await insertTask(t(), s.projectId, s.fail.templateId, 'running', new Date(now.getTime() - 30_000));
    const slow = await insertTask(t(), s.projectId, s.fail.templateId, 'running', new Date(now.getTime() - 120_000));
    const sweeps = t().app.services.notificationRouting.sweeps;
    await sweeps.sweep(now);
    await sweeps.sweep(now);
    const [req] = await receivedOn(s.path);
    expect(req!.json).toMatchObject({
      event: 'long_running',
      task: { id: slow, status: 'running' },
      running_minutes: 2,
    });
    expect((await deliveryRows(t(), slow)).map((r) => r.event)).toEqual(['long_running']);
    expect(await deliveryRows(t(), recent)).toEqual([]);
    await t().db.db.updateTable('task').set({ status: 'error' }).where('id', 'in', [recent, slow]).execute();
  });

  it('tells of drift found by a drift check', async () => {
    const s = await setup();
    await rule(s.admin, s.projectId, { destination_id: s.dest, events: ['drift'] });
    const task = await insertTask(t(), s.projectId, s.fail.templateId, 'success', new Date());
    t().app.services.notifications.driftFound(task, 'prod', {
      create: 1,
      update: 2,
      replace: 0,
      destroy: 0,
      resources: [],
      truncated: false,
      output_changes: [],
      refresh_only: true,
    } as never);
    const [req] = await receivedOn(s.path);
    expect(req!.json).toMatchObject({
      event: 'drift',
      task: { id: task },
      drift: { workspace: 'prod', changes: { create: 1, update: 2 } },
    });
  });

  it('tells of an approval waiting, whatever the instance channels', async () => {
    const s = await setup();
    await rule(s.admin, s.projectId, { destination_id: s.dest, events: ['approval_needed'] });
    const message = buildApprovalMessage({
      projectId: s.projectId,
      projectName: s.name,
      approvalId: 77,
      approvalTitle: 'Release prod',
      templateId: s.fail.templateId,
      templateName: 'Deploy',
      taskId: null,
      requester: 'Alice',
      requiredApprovals: 1,
      deadline: null,
      url: `${WEB_HOST}/project/${s.projectId}/approvals/77`,
    });
    await t().app.services.notifications.approvalRequested({
      projectAlert: false,
      alertChat: null,
      shared: message,
      personal: [],
    });
    const [req] = await receivedOn(s.path);
    expect(req!.json).toMatchObject({
      event: 'approval_needed',
      approval: { id: 77, url: `${WEB_HOST}/project/${s.projectId}/approvals/77` },
      template: { id: s.fail.templateId },
    });
  });

  it('tells of a runner gone silent once per silence, and sends the digest at its hour once a day', async () => {
    const s = await setup();
    await rule(s.admin, s.projectId, { destination_id: s.dest, events: ['runner_offline', 'digest'], digest_hour: 6 });
    const now = new Date('2031-05-04T06:10:00.000Z');
    const touched = new Date(now.getTime() - 3600_000).toISOString();
    const runner = await insertReturningId(t().db.db, 'runner', {
      project_id: s.projectId,
      name: 'edge-1',
      tag: '',
      webhook: '',
      max_parallel_tasks: 1,
      active: 1,
      token_hash: uniq('hash'),
      public_key: '',
      touched,
      cleaning_requested: 0,
      created: touched,
    } as never);
    const sweeps = t().app.services.notificationRouting.sweeps;
    await sweeps.sweep(now);
    await sweeps.sweep(now);
    await sweeps.sweep(new Date('2031-05-04T07:10:00.000Z')); // past the digest's hour
    const rows = await t()
      .db.db.selectFrom('notification_delivery')
      .select(['event', 'subject'])
      .where('destination_id', '=', s.dest)
      .orderBy('event')
      .execute();
    expect(rows).toEqual([
      { event: 'digest', subject: 'Digest of 2031-05-04' },
      { event: 'runner_offline', subject: 'Runner edge-1' },
    ]);
    const got = await receivedOn(s.path, 2);
    const digest = got.map((r) => r.json as NotificationPayload).find((p) => p.event === 'digest');
    expect(digest?.digest).toMatchObject({ since: '2031-05-03T06:10:00.000Z', until: '2031-05-04T06:10:00.000Z' });

    // Back, then silent again: told again.
    const later = new Date(now.getTime() + 7200_000).toISOString();
    await t().db.db.updateTable('runner').set({ touched: later }).where('id', '=', runner).execute();
    await sweeps.sweep(new Date(now.getTime() + 4 * 3600_000));
    const offline = await t()
      .db.db.selectFrom('notification_delivery')
      .select('id')
      .where('destination_id', '=', s.dest)
      .where('event', '=', 'runner_offline')
      .execute();
    expect(offline).toHaveLength(2);
    await t().db.db.updateTable('runner').set({ active: 0 }).where('id', '=', runner).execute();
  });

  it('applies the most specific rule per destination, silences with an empty list, and filters', async () => {
    const s = await setup();
    const other = await setupTemplate(s.admin, s.projectId, s.repo, { name: 'Quiet', playbook: 'fail.sh' });
    await rule(s.admin, s.projectId, { destination_id: s.dest, events: ['task_failed'] });
    await rule(s.admin, s.projectId, { destination_id: s.dest, events: [], template_id: other.templateId });
    const router = t().app.services.notificationRouting.router;
    const route = (taskId: number) => router.route({ type: 'task', taskId, status: 'error' });

    const loud = await insertTask(t(), s.projectId, s.fail.templateId, 'error', new Date());
    const quiet = await insertTask(t(), s.projectId, other.templateId, 'error', new Date());
    expect(await route(loud)).toBe(1);
    expect(await route(loud)).toBe(0); // queued once
    expect(await route(quiet)).toBe(0);

    // A schedule's rule wins over its template's silence.
    const sched = await s.admin.post(`/api/project/${s.projectId}/schedules`, {
      name: 'nightly',
      cron_format: '0 3 * * *',
      template_id: other.templateId,
      active: false,
    });
    await rule(s.admin, s.projectId, { destination_id: s.dest, events: ['task_failed'], schedule_id: sched.json().id });
    const scheduled = await insertTask(t(), s.projectId, other.templateId, 'error', new Date(), {
      schedule_id: sched.json().id,
    });
    expect(await route(scheduled)).toBe(1);

    // Filters, each on a destination of its own.
    const runner = await signedInUser(t());
    await addMember(t(), s.projectId, runner.id, 'task_runner');
    const dOnly = await destination(s.admin, s.projectId, `/f1/${s.name}`);
    const dBranch = await destination(s.admin, s.projectId, `/f2/${s.name}`);
    const dHuman = await destination(s.admin, s.projectId, `/f3/${s.name}`);
    await rule(s.admin, s.projectId, { destination_id: dOnly, events: ['task_failed'], only_schedules: true });
    await rule(s.admin, s.projectId, { destination_id: dBranch, events: ['task_failed'], branch: 'release' });
    await rule(s.admin, s.projectId, { destination_id: dHuman, events: ['task_failed'], exclude_task_runners: true });
    const byRunner = await insertTask(t(), s.projectId, s.fail.templateId, 'error', new Date(), { user_id: runner.id });
    const onRelease = await insertTask(t(), s.projectId, s.fail.templateId, 'error', new Date(), {
      user_id: s.admin.id,
      git_branch: 'release',
    });
    await route(byRunner);
    await route(onRelease);
    await route(scheduled);
    const dests = async (taskId: number) => (await deliveryRows(t(), taskId)).map((r) => r.destination_id).sort();
    expect(await dests(byRunner)).toEqual([s.dest]);
    expect(await dests(onRelease)).toEqual([s.dest, dBranch, dHuman].sort());
    expect(await dests(scheduled)).toEqual([s.dest, dOnly, dHuman].sort());
  });
});

async function deliveryRows(ctx: TestContext, taskId: number) {
  return ctx.db.db
    .selectFrom('notification_delivery')
    .select(['event', 'destination_id', 'status'])
    .where('task_id', '=', taskId)
    .orderBy('id')
    .execute();
}

/** A task row as a run leaves it (the router reads only the database). */
async function insertTask(
  ctx: TestContext,
  projectId: number,
  templateId: number,
  status: string,
  start: Date,
  extra: { schedule_id?: number; user_id?: number; git_branch?: string } = {},
): Promise<number> {
  return insertReturningId(ctx.db.db, 'task', {
    project_id: projectId,
    template_id: templateId,
    status,
    message: '',
    commit_message: '',
    environment: '{}',
    params: '{}',
    created: start.toISOString(),
    start: start.toISOString(),
    end: status === 'running' ? null : new Date().toISOString(),
    ...extra,
  } as never);
}
