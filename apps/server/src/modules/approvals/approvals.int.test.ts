import type { Approval } from '@gantry/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gitRepo } from '../../test/git-fixture.js';
import { addMember, createProject, engines, signedInUser, uniq, useTestApp, type Caller } from '../../test/harness.js';
import { setupTemplate, runTask, waitForTask } from '../../test/tasks.js';
import { startSmtpReceiver } from '../../test/smtp-receiver.js';
import { waitFor } from '../../test/wait.js';

/**
 * Approvals over the real API, with real bash tasks: a template's approval policy holds its tasks
 * in `waiting_approval` (no queue slot: the server has one) until N of its approvers approve.
 * Approvers hear of it by email with a signed one-time link (a local SMTP receiver keeps them).
 */
const smtp = await startSmtpReceiver();
afterAll(() => smtp.close());

describe.each(engines)('approvals ($name)', (engine) => {
  const t = useTestApp(engine, {
    GANTRY_MAX_PARALLEL_TASKS: '1',
    GANTRY_WEB_HOST: 'https://gantry.example',
    GANTRY_EMAIL_ALERT: 'true',
    GANTRY_EMAIL_HOST: '127.0.0.1',
    GANTRY_EMAIL_PORT: String(smtp.port),
    GANTRY_EMAIL_SENDER: 'gantry@test.local',
  });
  const repoPath = gitRepo({ 'run.sh': 'echo "ran by approval"\n', 'slow.sh': 'sleep 1\necho slow done\n' });
  let owner: Caller;
  let requester: Caller;
  let a1: Caller;
  let a2: Caller;
  let a3: Caller;
  let manager: Caller;
  let guest: Caller;
  let outsider: Caller;
  let projectId: number;
  let base: { repositoryId: number; environmentId: number };

  beforeAll(async () => {
    owner = await signedInUser(t(), { admin: true });
    [requester, a1, a2, a3, manager, guest, outsider] = await Promise.all(
      Array.from({ length: 7 }, () => signedInUser(t())),
    );
    projectId = await createProject(owner);
    await addMember(t(), projectId, requester.id, 'task_runner');
    for (const c of [a1, a2, a3, guest]) await addMember(t(), projectId, c.id, 'guest');
    await addMember(t(), projectId, manager.id, 'manager');
    const s = await setupTemplate(owner, projectId, repoPath, { name: 'plain', playbook: 'slow.sh' });
    base = { repositoryId: s.repositoryId, environmentId: s.environmentId };
  });

  async function template(policy: Record<string, unknown> | null, playbook = 'run.sh'): Promise<number> {
    const res = await owner.post(`/api/project/${projectId}/templates`, {
      name: uniq('tpl'),
      app: 'bash',
      playbook,
      repository_id: base.repositoryId,
      environment_id: base.environmentId,
      approval_policy: policy,
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().id;
  }

  async function approvalOfTask(taskId: number): Promise<Approval> {
    const list = (await owner.get(`/api/project/${projectId}/approvals?status=all`)).json<Approval[]>();
    const a = list.find((x) => x.task_id === taskId);
    if (!a) throw new Error(`no approval for task ${taskId}`);
    return a;
  }

  const vote = (c: Caller, id: number, decision: 'approve' | 'reject', body?: unknown) =>
    c.post(`/api/project/${projectId}/approvals/${id}/${decision}`, body);

  it('stores a policy on the template and refuses one without approvers or naming a non-member', async () => {
    const id = await template({ approvers: { users: [a1.id], roles: ['manager'] }, required_approvals: 1 });
    const tpl = (await owner.get(`/api/project/${projectId}/templates/${id}`)).json();
    expect(tpl.approval_policy).toEqual({
      approvers: { users: [a1.id], roles: ['manager'], groups: [] },
      required_approvals: 1,
      allow_self_approval: false,
      on_timeout: 'reject',
    });
    const none = await owner.post(`/api/project/${projectId}/templates`, {
      name: uniq('tpl'),
      app: 'bash',
      playbook: 'run.sh',
      repository_id: base.repositoryId,
      environment_id: base.environmentId,
      approval_policy: { approvers: {} },
    });
    expect(none.statusCode).toBe(400);
    expect(none.json().code).toBe('approval_approvers_required');
    const stranger = await owner.post(`/api/project/${projectId}/templates`, {
      name: uniq('tpl'),
      app: 'bash',
      playbook: 'run.sh',
      repository_id: base.repositoryId,
      environment_id: base.environmentId,
      approval_policy: { approvers: { users: [outsider.id] } },
    });
    expect(stranger.statusCode).toBe(400);
    expect(stranger.json().code).toBe('approver_not_member');
  });

  it('holds a task in waiting_approval without a slot; 2 of 3 approve it (the requester may not) and it runs', async () => {
    const tplId = await template({ approvers: { users: [requester.id, a1.id, a2.id, a3.id] }, required_approvals: 2 });
    const taskId = await runTask(requester, projectId, { template_id: tplId });
    expect((await requester.get(`/api/project/${projectId}/tasks/${taskId}`)).json().status).toBe('waiting_approval');

    // The one slot of this server is free for other tasks meanwhile.
    const other = await runTask(owner, projectId, { template_id: await template(null) });
    expect((await waitForTask(owner, projectId, other)).status).toBe('success');
    expect((await owner.get(`/api/project/${projectId}/tasks/${taskId}`)).json().status).toBe('waiting_approval');

    const approval = await approvalOfTask(taskId);
    expect(approval).toMatchObject({
      status: 'pending',
      title: expect.stringContaining(`Task #${taskId}`),
      requester_id: requester.id,
      required_approvals: 2,
      can_decide: false,
    });
    // a1's inbox holds it; the requester's does not (self-approval is off).
    expect((await a1.get('/api/approvals')).json<Approval[]>().map((a) => a.id)).toContain(approval.id);
    expect((await requester.get('/api/approvals')).json<Approval[]>().map((a) => a.id)).not.toContain(approval.id);

    const self = await vote(requester, approval.id, 'approve');
    expect(self.statusCode).toBe(403);
    expect(self.json().code).toBe('approval_not_approver');
    // Not an approver: a guest of the project not named, and an admin (not automatically one).
    expect((await vote(guest, approval.id, 'approve')).json().code).toBe('approval_not_approver');
    expect((await vote(owner, approval.id, 'approve')).statusCode).toBe(403);

    const first = await vote(a1, approval.id, 'approve', { comment: 'looks fine' });
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json()).toMatchObject({
      status: 'pending',
      can_decide: false,
      votes: [{ user_id: a1.id, username: a1.username, decision: 'approve', comment: 'looks fine' }],
    });
    const again = await vote(a1, approval.id, 'approve');
    expect(again.statusCode).toBe(409);
    expect(again.json().code).toBe('approval_already_voted');
    expect((await owner.get(`/api/project/${projectId}/tasks/${taskId}`)).json().status).toBe('waiting_approval');

    const second = await vote(a2, approval.id, 'approve');
    expect(second.json()).toMatchObject({ status: 'approved', decided_by: a2.username });
    expect((await waitForTask(owner, projectId, taskId)).status).toBe('success');
    const late = await vote(a3, approval.id, 'approve');
    expect(late.statusCode).toBe(409);
    expect(late.json().code).toBe('approval_decided');

    // Who decided and why is in the activity stream and the audit trail.
    const events = (await owner.get(`/api/project/${projectId}/events`))
      .json<Array<{ description: string }>>()
      .map((e) => e.description);
    expect(events).toContain(
      `${a1.username} approved Task #${taskId} of ${(await owner.get(`/api/project/${projectId}/templates/${tplId}`)).json().name}: looks fine`,
    );
    const audit = (await owner.get(`/api/audit?object_type=approval`)).json();
    const entries = (Array.isArray(audit) ? audit : (audit.entries ?? audit.items ?? [])) as Array<{
      actor: string;
      object_id: number;
      after: Record<string, unknown>;
    }>;
    expect(entries.filter((e) => e.object_id === approval.id).map((e) => [e.actor, e.after?.decision])).toEqual(
      expect.arrayContaining([
        [a1.username, 'approve'],
        [a2.username, 'approve'],
      ]),
    );
  });

  it('lets the requester approve when self-approval is on', async () => {
    const tplId = await template({ approvers: { users: [requester.id] }, allow_self_approval: true });
    const taskId = await runTask(requester, projectId, { template_id: tplId });
    const approval = await approvalOfTask(taskId);
    expect((await requester.get(`/api/project/${projectId}/approvals/${approval.id}`)).json().can_decide).toBe(true);
    expect((await vote(requester, approval.id, 'approve')).json().status).toBe('approved');
    expect((await waitForTask(owner, projectId, taskId)).status).toBe('success');
  });

  it('takes a role approver; a non-member cannot reach it; a reject (without a body) rejects the task', async () => {
    const tplId = await template({ approvers: { roles: ['manager'] } });
    const taskId = await runTask(requester, projectId, { template_id: tplId });
    const approval = await approvalOfTask(taskId);
    const away = await vote(outsider, approval.id, 'approve');
    expect(away.statusCode).toBe(404);
    expect((await outsider.get(`/api/project/${projectId}/approvals/${approval.id}`)).statusCode).toBe(404);
    expect((await outsider.get('/api/approvals')).json()).toEqual([]);
    expect((await vote(a1, approval.id, 'reject')).statusCode).toBe(403);
    const no = await vote(manager, approval.id, 'reject');
    expect(no.statusCode, no.body).toBe(200);
    expect(no.json()).toMatchObject({
      status: 'rejected',
      decided_by: manager.username,
      votes: [{ decision: 'reject', comment: '' }],
    });
    const task = await waitForTask(owner, projectId, taskId, ['rejected']);
    expect(task.end).toBeTruthy();

    // A null body is no body either.
    const next = await runTask(requester, projectId, { template_id: tplId });
    const a = await approvalOfTask(next);
    const ok = await vote(manager, a.id, 'approve', null);
    expect(ok.statusCode, ok.body).toBe(200);
    expect((await waitForTask(owner, projectId, next)).status).toBe('success');
  });

  it('takes a member whose membership came from a mapped directory group', async () => {
    const member = await signedInUser(t());
    await t()
      .db.db.insertInto('project_user')
      .values({
        project_id: projectId,
        user_id: member.id,
        role: 'guest',
        created: new Date().toISOString(),
        mapped_source: 'ldap',
        mapped_group: 'ops-approvers',
      })
      .execute();
    const tplId = await template({ approvers: { groups: ['ops-approvers'] } });
    const taskId = await runTask(requester, projectId, { template_id: tplId });
    const approval = await approvalOfTask(taskId);
    expect((await member.get('/api/approvals')).json<Approval[]>().map((a) => a.id)).toContain(approval.id);
    expect((await vote(guest, approval.id, 'approve')).statusCode).toBe(403);
    expect((await vote(member, approval.id, 'approve', { comment: 'ops ok' })).json().status).toBe('approved');
    expect((await waitForTask(owner, projectId, taskId)).status).toBe('success');
  });

  it('times out: to reject, and to approve (the task runs), once', async () => {
    const services = t().app.services;
    for (const onTimeout of ['reject', 'approve'] as const) {
      const tplId = await template({ approvers: { users: [a1.id] }, timeout_seconds: 60, on_timeout: onTimeout });
      const taskId = await runTask(requester, projectId, { template_id: tplId });
      const approval = await approvalOfTask(taskId);
      expect(Date.parse(approval.deadline!) - Date.parse(approval.created)).toBe(60_000);
      await t()
        .db.db.updateTable('approval')
        .set({ deadline: new Date(Date.now() - 1000).toISOString() })
        .where('id', '=', approval.id)
        .execute();
      // Two sweeps at once (two nodes, say): one decides it.
      const swept = await Promise.all([services.approvals.sweep(), services.approvals.sweep()]);
      expect(swept.reduce((a, b) => a + b, 0)).toBe(1);
      const after = (await owner.get(`/api/project/${projectId}/approvals/${approval.id}`)).json();
      expect(after).toMatchObject({
        status: onTimeout === 'approve' ? 'approved' : 'rejected',
        decided_by: 'timeout',
        can_decide: false,
      });
      expect((await waitForTask(owner, projectId, taskId)).status).toBe(
        onTimeout === 'approve' ? 'success' : 'rejected',
      );
    }
  });

  it('opens a workflow node approval once, and reports a passed deadline by its timeout', async () => {
    const services = t().app.services;
    const request = {
      projectId,
      runId: 990_000 + Math.floor(Math.random() * 1000),
      workflowId: 1,
      nodeId: 'approve-prod',
      attempt: 1,
      requesterId: requester.id,
      title: 'Release / approve-prod',
      spec: {
        approvers: { users: [a1.id], roles: [], groups: [] },
        required_approvals: 1,
        allow_self_approval: false,
        timeout_seconds: 60,
        on_timeout: 'approve' as const,
      },
    };
    const ids = await Promise.all([
      services.approvals.openForNode(request),
      services.approvals.openForNode(request),
      services.approvals.openForNode(request),
    ]);
    expect(new Set(ids).size).toBe(1);
    expect(await services.approvals.state(ids[0]!)).toBe('pending');
    await t()
      .db.db.updateTable('approval')
      .set({ deadline: new Date(Date.now() - 1000).toISOString() })
      .where('id', '=', ids[0]!)
      .execute();
    expect(await services.approvals.state(ids[0]!)).toBe('approved');

    const other = await services.approvals.openForNode({
      ...request,
      attempt: 2,
      spec: { ...request.spec, timeout_seconds: null },
    });
    expect(other).not.toBe(ids[0]);
    await services.approvals.cancel(other);
    expect(await services.approvals.state(other)).toBe('rejected');
    expect((await owner.get(`/api/project/${projectId}/approvals/${other}`)).json().decided_by).toBe('canceled');

    // A timeout meaning reject is told apart from a refusal: the run's node says nobody answered.
    const unanswered = await services.approvals.openForNode({
      ...request,
      attempt: 3,
      spec: { ...request.spec, on_timeout: 'reject' },
    });
    await t()
      .db.db.updateTable('approval')
      .set({ deadline: new Date(Date.now() - 1000).toISOString() })
      .where('id', '=', unanswered)
      .execute();
    expect(await services.approvals.state(unanswered)).toBe('timed_out');
    expect((await owner.get(`/api/project/${projectId}/approvals/${unanswered}`)).json()).toMatchObject({
      status: 'rejected',
      decided_by: 'timeout',
    });
  });

  it('reads the approval of one task of the project (task_id): any member, with its votes, never another project’s', async () => {
    const tplId = await template({ approvers: { users: [a1.id, a2.id] }, required_approvals: 2 });
    const taskId = await runTask(requester, projectId, { template_id: tplId });
    const other = await runTask(requester, projectId, { template_id: tplId });
    const approval = await approvalOfTask(taskId);
    expect((await vote(a1, approval.id, 'approve', { comment: 'looks fine' })).statusCode).toBe(200);
    const byTask = (c: Caller, p: number, task: number | string, status = 'all') =>
      c.get(`/api/project/${p}/approvals?status=${status}&task_id=${task}`);
    const read = await byTask(guest, projectId, taskId);
    expect(read.statusCode, read.body).toBe(200);
    expect(read.json()).toEqual([
      expect.objectContaining({
        id: approval.id,
        task_id: taskId,
        status: 'pending',
        required_approvals: 2,
        can_decide: false,
        votes: [expect.objectContaining({ username: a1.username, decision: 'approve', comment: 'looks fine' })],
      }),
    ]);
    // Still listed once decided (status=all), and only this task's.
    expect((await vote(a2, approval.id, 'reject', { comment: 'not today' })).json().status).toBe('rejected');
    const decided = (await byTask(owner, projectId, taskId)).json<Approval[]>();
    expect(decided.map((a) => [a.id, a.status, a.votes.map((v) => v.decision)])).toEqual([
      [approval.id, 'rejected', ['approve', 'reject']],
    ]);
    expect((await byTask(owner, projectId, taskId, 'pending')).json()).toEqual([]);
    expect((await byTask(owner, projectId, other)).json<Approval[]>().map((a) => a.task_id)).toEqual([other]);
    // A task without approval, a task of another project, a stranger, a bad id.
    const plainTask = await runTask(requester, projectId, { template_id: await template(null) });
    expect((await byTask(owner, projectId, plainTask)).json()).toEqual([]);
    const otherProject = await createProject(owner);
    expect((await byTask(owner, otherProject, taskId)).json()).toEqual([]);
    expect((await byTask(outsider, projectId, taskId)).statusCode).toBe(404);
    for (const bad of ['abc', '0', '-1']) {
      const r = await byTask(owner, projectId, bad);
      expect([r.statusCode, typeof r.json().code]).toEqual([400, 'string']);
    }
    await requester.post(`/api/project/${projectId}/tasks/${other}/stop`, {});
  });

  it('decides once under a burst of votes', async () => {
    const tplId = await template({ approvers: { users: [a1.id, a2.id, a3.id] }, required_approvals: 2 });
    const taskId = await runTask(requester, projectId, { template_id: tplId });
    const approval = await approvalOfTask(taskId);
    const decided: number[] = [];
    const off = t().app.services.approvals.onDecided((a) => decided.push(a.id));
    const answers = await Promise.all([
      vote(a1, approval.id, 'approve'),
      vote(a1, approval.id, 'approve'),
      vote(a2, approval.id, 'approve'),
      vote(a3, approval.id, 'approve'),
      vote(a2, approval.id, 'approve'),
    ]);
    off();
    const codes = answers.map((r) => r.statusCode);
    // Each user votes once; a vote arriving after the decision is refused as decided.
    expect(codes.filter((c) => c === 200).length).toBeGreaterThanOrEqual(2);
    expect(codes.every((c) => c === 200 || c === 409)).toBe(true);
    expect(decided.filter((id) => id === approval.id)).toEqual([approval.id]);
    const after = (await owner.get(`/api/project/${projectId}/approvals/${approval.id}`)).json<Approval>();
    expect(after.status).toBe('approved');
    expect(new Set(after.votes.map((v) => v.user_id)).size).toBe(after.votes.length);
    expect((await waitForTask(owner, projectId, taskId)).status).toBe('success');
  });

  it('mails each approver a signed one-time link: good once, for that user only', async () => {
    const tplId = await template({ approvers: { users: [a1.id, a2.id] } });
    const taskId = await runTask(requester, projectId, { template_id: tplId });
    const approval = await approvalOfTask(taskId);
    const linkOf = async (c: Caller) => {
      const mail = await waitFor(`mail to ${c.username}`, () =>
        smtp.mails.find(
          (m) => m.to.some((to) => to.includes(c.username)) && m.data.includes(`approvals/${approval.id}`),
        ),
      );
      // Quoted-printable: soft line breaks and "=" escaped.
      const text = mail.data.replace(/=\r?\n/g, '').replace(/=3D/g, '=');
      const url = new URL(/https:\/\/gantry\.example\/approvals\/\d+\?t=[A-Za-z0-9_.-]+/.exec(text)![0]);
      return url.searchParams.get('t')!;
    };
    const token1 = await linkOf(a1);
    const token2 = await linkOf(a2);
    expect(token1).not.toBe(token2);
    expect(
      smtp.mails.some(
        (m) => m.to.some((to) => to.includes(requester.username)) && m.data.includes(`approvals/${approval.id}`),
      ),
    ).toBe(false);

    const other = await a2.post('/api/approvals/link', { token: token1 });
    expect(other.statusCode).toBe(400);
    expect(other.json().code).toBe('approval_link_invalid');
    const forged = await a1.post('/api/approvals/link', { token: `${token1.split('.')[0]}.${'A'.repeat(43)}` });
    expect(forged.json().code).toBe('approval_link_invalid');
    const ok = await a1.post('/api/approvals/link', { token: token1 });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json()).toEqual({ project_id: projectId, approval_id: approval.id });
    const twice = await a1.post('/api/approvals/link', { token: token1 });
    expect(twice.statusCode).toBe(400);
    expect(twice.json().code).toBe('approval_link_used');
    const expired = t().app.services.approvals.linkToken(
      { id: approval.id, deadline: new Date(Date.now() - 1000).toISOString() },
      a2.id,
    );
    expect((await a2.post('/api/approvals/link', { token: expired })).json().code).toBe('approval_link_expired');
    expect((await a2.post('/api/approvals/link', { token: 'nonsense' })).json().code).toBe('approval_link_invalid');
    await vote(a2, approval.id, 'reject', { comment: 'not now' });
  });

  it('carries a template policy through a Gantry backup (named users only where they are members)', async () => {
    const tplId = await template({
      approvers: { users: [a1.id], roles: ['manager'], groups: ['ops'] },
      required_approvals: 1,
      timeout_seconds: 3600,
      on_timeout: 'approve',
    });
    const name = (await owner.get(`/api/project/${projectId}/templates/${tplId}`)).json().name;
    const backup = JSON.parse((await owner.get(`/api/project/${projectId}/backup?format=gantry`)).body);
    const saved = backup.templates.find((x: { name: string }) => x.name === name);
    expect(saved.approval_policy).toMatchObject({
      approvers: { users: [a1.id], roles: ['manager'], groups: ['ops'] },
      timeout_seconds: 3600,
      on_timeout: 'approve',
    });
    const restored = await owner.post('/api/projects/restore', {
      ...backup,
      meta: { ...backup.meta, name: uniq('restored') },
    });
    expect(restored.statusCode, restored.body).toBe(201);
    const newId = restored.json().id;
    const tpls = (await owner.get(`/api/project/${newId}/templates`)).json<
      Array<{ name: string; approval_policy: unknown }>
    >();
    // The restored project's only member is the one who restored it: a1 is left out, roles and groups stay.
    expect(tpls.find((x) => x.name === name)!.approval_policy).toMatchObject({
      approvers: { users: [], roles: ['manager'], groups: ['ops'] },
      timeout_seconds: 3600,
      on_timeout: 'approve',
    });
  });

  it('does not find another project’s approval by id, and a stop ends a waiting task and its approval', async () => {
    const tplId = await template({ approvers: { users: [a1.id] } });
    const taskId = await runTask(requester, projectId, { template_id: tplId });
    const approval = await approvalOfTask(taskId);
    const otherProject = await createProject(owner);
    await addMember(t(), otherProject, a1.id, 'guest');
    const cross = await a1.post(`/api/project/${otherProject}/approvals/${approval.id}/approve`);
    expect(cross.statusCode).toBe(404);
    expect(cross.json().code).toBe('approval_not_found');
    expect((await a1.get(`/api/project/${otherProject}/approvals/${approval.id}`)).statusCode).toBe(404);

    const stop = await requester.post(`/api/project/${projectId}/tasks/${taskId}/stop`, {});
    expect(stop.statusCode).toBeLessThan(300);
    expect((await waitForTask(owner, projectId, taskId)).status).toBe('stopped');
    expect((await owner.get(`/api/project/${projectId}/approvals/${approval.id}`)).json()).toMatchObject({
      status: 'rejected',
      decided_by: 'canceled',
    });
    expect((await vote(a1, approval.id, 'approve')).json().code).toBe('approval_decided');
    // Pending only by default.
    expect(
      (await owner.get(`/api/project/${projectId}/approvals`)).json<Approval[]>().every((a) => a.status === 'pending'),
    ).toBe(true);
  });
});
