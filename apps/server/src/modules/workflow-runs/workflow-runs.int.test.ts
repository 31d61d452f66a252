import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { addMember, createProject, engines, signedInUser, useTestApp } from '../../test/harness.js';
import { taskLog, waitForTask } from '../../test/tasks.js';
import {
  createWorkflow,
  nodeOf,
  requireApproval,
  startRun,
  statuses,
  tnode,
  waitRun,
  wfProject,
} from '../../test/workflow-runs.js';

describe.each(engines)('workflow runs ($name)', (engine) => {
  const t = useTestApp(engine);

  it('fires success and failure edges, waits for all or any incoming edge, and passes outputs on', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const { p, tpl } = await wfProject(admin);
    const w = await createWorkflow(admin, p, {
      nodes: [
        tnode('build', tpl['out.sh']),
        tnode('test', tpl['fail.sh']),
        tnode('rollback', tpl['in.sh']),
        tnode('deploy', tpl['ok.sh']),
        tnode('both', tpl['ok.sh']),
        tnode('either', tpl['ok.sh']),
        tnode('cleanup', tpl['ok.sh']),
      ],
      edges: [
        { from: 'build', to: 'test', on: 'success' },
        { from: 'test', to: 'rollback', on: 'failure' },
        { from: 'test', to: 'deploy', on: 'success' },
        { from: 'build', to: 'both', on: 'success' },
        { from: 'test', to: 'both', on: 'success' },
        { from: 'build', to: 'either', on: 'success' },
        { from: 'test', to: 'either', on: 'success' },
        { from: 'test', to: 'cleanup', on: 'always' },
      ],
      joins: { either: 'any' },
    });
    const started = await startRun(admin, p, w);
    expect(started).toMatchObject({ status: 'running', workflow_id: w, project_id: p });
    const run = await waitRun(admin, p, w, started.id);
    expect(statuses(run)).toEqual({
      build: 'success',
      test: 'failed',
      rollback: 'success',
      deploy: 'skipped',
      both: 'skipped',
      either: 'success',
      cleanup: 'success',
    });
    // The failure was handled by an edge: the run succeeded.
    expect(run.status).toBe('success');
    expect(run.ended).not.toBeNull();
    for (const id of ['build', 'test', 'rollback', 'either', 'cleanup'])
      expect(nodeOf(run, id).task_ids).toHaveLength(1);
    expect(nodeOf(run, 'deploy').task_ids).toEqual([]);
    expect(nodeOf(run, 'build').output_keys).toEqual(['version']);
    // Each node's task is an ordinary task of the project; the node after build got its output as data.
    const rollbackTask = nodeOf(run, 'rollback').task_ids[0]!;
    expect((await waitForTask(admin, p, rollbackTask)).status).toBe('success');
    // The task names its run, node and try, so its page links back to the run.
    expect((await admin.get(`/api/project/${p}/tasks/${rollbackTask}`)).json().workflow_run).toEqual({
      id: run.id,
      workflow_id: w,
      node: 'rollback',
      attempt: 1,
    });
    const own = (await admin.post(`/api/project/${p}/tasks`, { template_id: tpl['ok.sh'] })).json<{ id: number }>().id;
    expect((await admin.get(`/api/project/${p}/tasks/${own}`)).json().workflow_run).toBeNull();
    expect(await taskLog(admin, p, rollbackTask)).toContain('inputs={"build":{"version":"1.2.3"}}');
    expect((await admin.get(`/api/project/${p}/workflows/${w}/runs`)).json()).toMatchObject([
      { id: run.id, status: 'success' },
    ]);
  });

  it('runs bash and ansible nodes in one workflow, each handing its output to the next', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const { p, tpl } = await wfProject(admin);
    const w = await createWorkflow(admin, p, {
      nodes: [tnode('build', tpl['out.sh']), tnode('deploy', tpl['deploy.yml']), tnode('verify', tpl['in.sh'])],
      edges: [
        { from: 'build', to: 'deploy', on: 'success' },
        { from: 'deploy', to: 'verify', on: 'success' },
      ],
    });
    const { id } = await startRun(admin, p, w);
    const run = await waitRun(admin, p, w, id, undefined, 120_000);
    const deployLog = (await taskLog(admin, p, nodeOf(run, 'deploy').task_ids[0]!)).join('\n');
    expect(run.status, deployLog).toBe('success');
    expect(deployLog).toContain('deploying 1.2.3');
    expect(nodeOf(run, 'deploy').output_keys).toEqual(['deployed']);
    expect(await taskLog(admin, p, nodeOf(run, 'verify').task_ids[0]!)).toContain(
      'inputs={"build":{"version":"1.2.3"},"deploy":{"deployed":"1.2.3"}}',
    );
  }, 150_000);

  it('runs a node with another variable group, and a deploy node deploys the build its run made', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const { p, tpl } = await wfProject(admin);
    const group = (
      await admin.post(`/api/project/${p}/environment`, {
        name: 'staging',
        json: '{}',
        env: JSON.stringify({ WHO: 'staging' }),
      })
    ).json<{ id: number }>().id;
    const whoTpl = (await admin.get(`/api/project/${p}/templates/${tpl['who.sh']}`)).json<Record<string, unknown>>();
    const build = (
      await admin.post(`/api/project/${p}/templates`, {
        ...whoTpl,
        id: undefined,
        name: 'build',
        type: 'build',
        start_version: '1.0.0',
        playbook: 'ok.sh',
      })
    ).json<{ id: number }>().id;
    const deploy = (
      await admin.post(`/api/project/${p}/templates`, {
        ...whoTpl,
        id: undefined,
        name: 'deploy',
        type: 'deploy',
        build_template_id: build,
        playbook: 'ok.sh',
      })
    ).json<{ id: number }>();
    expect(deploy.id, JSON.stringify(deploy)).toBeGreaterThan(0);
    // An older build of the project: the deploy must take the run's own, not this one.
    const older = (await admin.post(`/api/project/${p}/tasks`, { template_id: build })).json<{ id: number }>().id;
    expect((await waitForTask(admin, p, older)).status).toBe('success');
    const w = await createWorkflow(admin, p, {
      nodes: [
        tnode('plain', tpl['who.sh']),
        tnode('staged', tpl['who.sh'], { params: { environment_id: group } }),
        tnode('build', build),
        tnode('deploy', deploy.id),
      ],
      edges: [{ from: 'build', to: 'deploy', on: 'success' }],
    });
    const run = await waitRun(admin, p, w, (await startRun(admin, p, w)).id);
    expect(statuses(run)).toEqual({ plain: 'success', staged: 'success', build: 'success', deploy: 'success' });
    expect(await taskLog(admin, p, nodeOf(run, 'plain').task_ids[0]!)).toContain('who=nobody');
    expect(await taskLog(admin, p, nodeOf(run, 'staged').task_ids[0]!)).toContain('who=staging');
    const built = nodeOf(run, 'build').task_ids[0]!;
    const deployed = (await admin.get(`/api/project/${p}/tasks/${nodeOf(run, 'deploy').task_ids[0]!}`)).json<{
      build_task_id: number;
      version: string;
    }>();
    expect(deployed.build_task_id).toBe(built);
    expect(deployed.version).toBe('1.0.1');
  });

  it('retries a flaky node until its third try succeeds, with a growing delay', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const { p, tpl, flag } = await wfProject(admin);
    const w = await createWorkflow(admin, p, {
      nodes: [tnode('flaky', tpl['flag.sh'], { retries: 3, retry_delay_seconds: 1 }), tnode('after', tpl['ok.sh'])],
      edges: [{ from: 'flaky', to: 'after', on: 'success' }],
    });
    const { id } = await startRun(admin, p, w);
    // Two tries fail (no flag); while the node waits for its third, the flag appears.
    const waiting = await waitRun(
      admin,
      p,
      w,
      id,
      (r) => nodeOf(r, 'flaky').attempts === 2 && nodeOf(r, 'flaky').status === 'retry_wait',
    );
    const retryAt = Date.parse(nodeOf(waiting, 'flaky').next_try_at!);
    expect(retryAt).toBeGreaterThan(Date.now() + 500);
    fs.writeFileSync(flag, 'go');
    const run = await waitRun(admin, p, w, id);
    expect(run.status).toBe('success');
    expect(nodeOf(run, 'flaky')).toMatchObject({ status: 'success', attempts: 3 });
    const [a, b, c] = nodeOf(run, 'flaky').task_ids;
    expect([
      (await waitForTask(admin, p, a!)).status,
      (await waitForTask(admin, p, b!)).status,
      (await waitForTask(admin, p, c!)).status,
    ]).toEqual(['error', 'error', 'success']);
    expect(nodeOf(run, 'after').status).toBe('success');
  });

  it('resumes a failed run from its failed node only, and re-runs a whole run', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const { p, tpl, flag } = await wfProject(admin);
    const w = await createWorkflow(admin, p, {
      nodes: [
        tnode('a', tpl['ok.sh']),
        tnode('b', tpl['flag.sh']),
        tnode('c', tpl['ok.sh']),
        tnode('side', tpl['ok.sh']),
      ],
      edges: [
        { from: 'a', to: 'b', on: 'success' },
        { from: 'b', to: 'c', on: 'success' },
        { from: 'a', to: 'side', on: 'success' },
      ],
    });
    const { id } = await startRun(admin, p, w);
    const failed = await waitRun(admin, p, w, id);
    expect(failed.status).toBe('failed');
    expect(statuses(failed)).toEqual({ a: 'success', b: 'failed', c: 'skipped', side: 'success' });
    // Only a failed or stopped run resumes.
    const other = await startRun(admin, p, w);
    const busy = await admin.post(`/api/project/${p}/workflows/${w}/runs/${other.id}/resume`);
    expect([busy.statusCode, busy.json().code]).toEqual([409, 'workflow_run_not_resumable']);
    await waitRun(admin, p, w, other.id);

    fs.writeFileSync(flag, 'go');
    const resumed = await admin.post(`/api/project/${p}/workflows/${w}/runs/${id}/resume`);
    expect(resumed.statusCode).toBe(200);
    expect(resumed.json()).toMatchObject({ id, status: 'running' });
    const run = await waitRun(admin, p, w, id);
    expect(run.status).toBe('success');
    expect(statuses(run)).toEqual({ a: 'success', b: 'success', c: 'success', side: 'success' });
    // The successful nodes were not run again: one task each; b has its failed try and the new one.
    expect(nodeOf(run, 'a').task_ids).toEqual(nodeOf(failed, 'a').task_ids);
    expect(nodeOf(run, 'side').task_ids).toEqual(nodeOf(failed, 'side').task_ids);
    expect(nodeOf(run, 'b')).toMatchObject({ attempts: 2 });
    expect(nodeOf(run, 'b').task_ids).toHaveLength(2);
    expect(nodeOf(run, 'c').task_ids).toHaveLength(1);
    // ok.sh ran for a and side in both runs, and for c once, after the resume: nothing more.
    const tasks = (await admin.get(`/api/project/${p}/tasks?limit=100`)).json<Array<{ template_id: number }>>();
    expect(tasks.filter((x) => x.template_id === tpl['ok.sh'])).toHaveLength(2 + 2 + 1);

    const again = await admin.post(`/api/project/${p}/workflows/${w}/runs/${id}/rerun`);
    expect(again.statusCode).toBe(201);
    expect(again.json().id).not.toBe(id);
    expect((await waitRun(admin, p, w, again.json().id)).status).toBe('success');
  });

  it('fails a node past its timeout and stops its task', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const { p, tpl } = await wfProject(admin);
    const w = await createWorkflow(admin, p, { nodes: [tnode('slow', tpl['sleep.sh'], { timeout_seconds: 2 })] });
    const { id } = await startRun(admin, p, w);
    const run = await waitRun(admin, p, w, id);
    expect(run.status).toBe('failed');
    expect(nodeOf(run, 'slow')).toMatchObject({ status: 'failed', error: 'timed out after 2 s' });
    expect((await waitForTask(admin, p, nodeOf(run, 'slow').task_ids[0]!)).status).toBe('stopped');
  });

  it('stops a run: its running task stops, what had not started never does', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const { p, tpl } = await wfProject(admin);
    const w = await createWorkflow(admin, p, {
      nodes: [tnode('slow', tpl['sleep.sh']), tnode('next', tpl['ok.sh'])],
      edges: [{ from: 'slow', to: 'next', on: 'always' }],
    });
    const { id } = await startRun(admin, p, w);
    const running = await waitRun(admin, p, w, id, (r) => nodeOf(r, 'slow').task_ids.length === 1);
    await waitForTask(admin, p, nodeOf(running, 'slow').task_ids[0]!, ['running']);
    expect((await admin.post(`/api/project/${p}/workflows/${w}/runs/${id}/stop`)).statusCode).toBe(204);
    const run = await waitRun(admin, p, w, id);
    expect(run.status).toBe('stopped');
    expect(statuses(run)).toEqual({ slow: 'stopped', next: 'stopped' });
    expect((await waitForTask(admin, p, nodeOf(run, 'slow').task_ids[0]!)).status).toBe('stopped');
    expect(nodeOf(run, 'next').task_ids).toEqual([]);
    const audit = (await admin.get(`/api/audit?project_id=${p}&object_type=workflow`)).json<
      Array<{ action: string }>
    >();
    expect(audit.map((e) => e.action)).toEqual(expect.arrayContaining(['task_start', 'task_stop']));
    // A stopped run resumes.
    expect((await admin.post(`/api/project/${p}/workflows/${w}/runs/${id}/resume`)).statusCode).toBe(200);
    expect(nodeOf(await waitRun(admin, p, w, id, (r) => nodeOf(r, 'slow').task_ids.length === 2), 'slow').status).toBe(
      'running',
    );
    await admin.post(`/api/project/${p}/workflows/${w}/runs/${id}/stop`);
    expect((await waitRun(admin, p, w, id)).status).toBe('stopped');
  });

  it('runs a nested workflow and follows its result', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const { p, tpl } = await wfProject(admin);
    const inner = await createWorkflow(admin, p, {
      nodes: [tnode('one', tpl['ok.sh']), tnode('two', tpl['ok.sh'])],
      edges: [{ from: 'one', to: 'two', on: 'success' }],
    });
    const failing = await createWorkflow(admin, p, { nodes: [tnode('bad', tpl['fail.sh'])] });
    const outer = await createWorkflow(admin, p, {
      nodes: [
        { id: 'sub', type: 'workflow', workflow_id: inner },
        { id: 'subfail', type: 'workflow', workflow_id: failing },
        tnode('after', tpl['ok.sh']),
        tnode('recover', tpl['ok.sh']),
      ],
      edges: [
        { from: 'sub', to: 'after', on: 'success' },
        { from: 'subfail', to: 'recover', on: 'failure' },
      ],
    });
    const { id } = await startRun(admin, p, outer);
    const run = await waitRun(admin, p, outer, id);
    expect(statuses(run)).toEqual({ sub: 'success', subfail: 'failed', after: 'success', recover: 'success' });
    expect(run.status).toBe('success');
    const child = (
      await admin.get(`/api/project/${p}/workflows/${inner}/runs/${nodeOf(run, 'sub').child_run_id}`)
    ).json();
    expect(child).toMatchObject({ status: 'success', parent_run_id: id });
    expect(child.nodes.map((n: { task_ids: number[] }) => n.task_ids.length)).toEqual([1, 1]);
    expect(nodeOf(run, 'subfail').error).toMatch(/nested run #\d+ failed/);
  });

  it('resumes a failed nested workflow inside its own run: what succeeded there is not rerun', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const { p, tpl, flag } = await wfProject(admin);
    const inner = await createWorkflow(admin, p, {
      nodes: [tnode('prepare', tpl['ok.sh']), tnode('gate', tpl['flag.sh'])],
      edges: [{ from: 'prepare', to: 'gate', on: 'success' }],
    });
    const outer = await createWorkflow(admin, p, {
      nodes: [{ id: 'sub', type: 'workflow', workflow_id: inner }, tnode('after', tpl['ok.sh'])],
      edges: [{ from: 'sub', to: 'after', on: 'success' }],
    });
    const { id } = await startRun(admin, p, outer);
    const failed = await waitRun(admin, p, outer, id);
    expect(statuses(failed)).toEqual({ sub: 'failed', after: 'skipped' });
    const childId = nodeOf(failed, 'sub').child_run_id!;
    fs.writeFileSync(flag, 'go');
    expect((await admin.post(`/api/project/${p}/workflows/${outer}/runs/${id}/resume`)).statusCode).toBe(200);
    const resumed = await waitRun(admin, p, outer, id);
    expect(statuses(resumed)).toEqual({ sub: 'success', after: 'success' });
    // The same nested run went on: its first node kept its one task, only the gate ran again.
    expect(nodeOf(resumed, 'sub').child_run_id).toBe(childId);
    const child = (await admin.get(`/api/project/${p}/workflows/${inner}/runs/${childId}`)).json();
    expect(child.status).toBe('success');
    expect(
      Object.fromEntries(child.nodes.map((n: { id: string; task_ids: number[] }) => [n.id, n.task_ids.length])),
    ).toEqual({ prepare: 1, gate: 2 });
  });

  it('waits on an approval node until it is decided', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const { p, tpl } = await wfProject(admin);
    const decided = new Map<number, 'pending' | 'approved' | 'rejected'>();
    const opened: object[] = [];
    const driver = t().app.services.workflowDriver;
    const real = driver.approvals;
    // The approvals module has its own tests; here the run's side of the port.
    driver.approvals = {
      openForNode: async (r) => {
        opened.push(r);
        const id = 1000 + opened.length;
        decided.set(id, 'pending');
        return id;
      },
      state: async (id) => decided.get(id) ?? 'rejected',
      cancel: async (id) => void decided.set(id, 'rejected'),
    };
    try {
      const w = await createWorkflow(admin, p, {
        nodes: [
          { id: 'gate', type: 'approval', approvers: { users: [admin.id] }, required_approvals: 1 },
          tnode('deploy', tpl['ok.sh']),
        ],
        edges: [{ from: 'gate', to: 'deploy', on: 'success' }],
      });
      const { id } = await startRun(admin, p, w);
      const waiting = await waitRun(admin, p, w, id, (r) => nodeOf(r, 'gate').status === 'waiting_approval');
      expect(nodeOf(waiting, 'gate').approval_id).toBe(1001);
      expect(opened).toEqual([
        expect.objectContaining({
          projectId: p,
          runId: id,
          nodeId: 'gate',
          attempt: 1,
          requesterId: admin.id,
          spec: expect.objectContaining({ required_approvals: 1, allow_self_approval: false }),
        }),
      ]);
      expect(nodeOf(waiting, 'deploy').status).toBe('pending');
      decided.set(1001, 'approved');
      const run = await waitRun(admin, p, w, id);
      expect(statuses(run)).toEqual({ gate: 'success', deploy: 'success' });
      const rejected = await startRun(admin, p, w);
      await waitRun(admin, p, w, rejected.id, (r) => nodeOf(r, 'gate').status === 'waiting_approval');
      decided.set(1002, 'rejected');
      const r2 = await waitRun(admin, p, w, rejected.id);
      expect(r2.status).toBe('failed');
      expect(nodeOf(r2, 'gate')).toMatchObject({ status: 'failed', error: 'rejected' });
      expect(nodeOf(r2, 'deploy').status).toBe('skipped');
    } finally {
      driver.approvals = real;
    }
  });

  it('waits for a real approval: approvers decide through the API, a stop cancels what is still pending', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const { p, tpl } = await wfProject(admin);
    const approver = await signedInUser(t());
    await addMember(t(), p, approver.id, 'task_runner');
    const w = await createWorkflow(admin, p, {
      nodes: [
        { id: 'gate', type: 'approval', approvers: { users: [approver.id, admin.id] }, required_approvals: 1 },
        tnode('deploy', tpl['ok.sh']),
      ],
      edges: [{ from: 'gate', to: 'deploy', on: 'success' }],
    });
    const { id } = await startRun(admin, p, w);
    const waiting = await waitRun(admin, p, w, id, (r) => nodeOf(r, 'gate').status === 'waiting_approval');
    const aid = nodeOf(waiting, 'gate').approval_id!;
    // The requester may not approve their own run's gate (self-approval is off).
    expect((await admin.post(`/api/project/${p}/approvals/${aid}/approve`, { comment: 'me' })).statusCode).toBe(403);
    const voted = await approver.post(`/api/project/${p}/approvals/${aid}/approve`, { comment: 'ship it' });
    expect(voted.statusCode, voted.body).toBe(200);
    const run = await waitRun(admin, p, w, id);
    expect(statuses(run)).toEqual({ gate: 'success', deploy: 'success' });

    const second = await startRun(admin, p, w);
    const gated = await waitRun(admin, p, w, second.id, (r) => nodeOf(r, 'gate').status === 'waiting_approval');
    expect((await admin.post(`/api/project/${p}/workflows/${w}/runs/${second.id}/stop`)).statusCode).toBe(204);
    expect(statuses(await waitRun(admin, p, w, second.id))).toEqual({ gate: 'stopped', deploy: 'stopped' });
    const canceled = (await admin.get(`/api/project/${p}/approvals/${nodeOf(gated, 'gate').approval_id}`)).json();
    expect(canceled.status).not.toBe('pending');
  });

  it('holds a run at an approval node until 2 of 3 approve (the starter may not), and a timed-out gate takes the failure edge', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const { p, tpl } = await wfProject(admin);
    const approvers = [await signedInUser(t()), await signedInUser(t()), await signedInUser(t())];
    for (const a of approvers) await addMember(t(), p, a.id, 'guest');
    const [a1, a2, a3] = approvers as [(typeof approvers)[0], (typeof approvers)[0], (typeof approvers)[0]];
    const w = await createWorkflow(admin, p, {
      nodes: [
        // The starter is named too: self-approval is off by default, so naming them does not let them vote.
        { id: 'gate', type: 'approval', approvers: { users: [admin.id, a1.id, a2.id, a3.id] }, required_approvals: 2 },
        tnode('deploy', tpl['ok.sh']),
      ],
      edges: [{ from: 'gate', to: 'deploy', on: 'success' }],
    });
    const { id } = await startRun(admin, p, w);
    const waiting = await waitRun(admin, p, w, id, (r) => nodeOf(r, 'gate').status === 'waiting_approval');
    const aid = nodeOf(waiting, 'gate').approval_id!;
    const vote = (c: typeof admin, comment: string) =>
      c.post(`/api/project/${p}/approvals/${aid}/approve`, { comment });
    const self = await vote(admin, 'mine');
    expect([self.statusCode, self.json().code]).toEqual([403, 'approval_not_approver']);
    expect((await vote(a1, 'first')).json()).toMatchObject({ status: 'pending' });
    // One of two: the run still waits, nothing after the gate started.
    await new Promise((r) => setTimeout(r, 1500));
    const half = (await admin.get(`/api/project/${p}/workflows/${w}/runs/${id}`)).json();
    expect(statuses(half)).toEqual({ gate: 'waiting_approval', deploy: 'pending' });
    expect((await vote(a2, 'second')).json()).toMatchObject({ status: 'approved', decided_by: a2.username });
    const run = await waitRun(admin, p, w, id);
    expect(statuses(run)).toEqual({ gate: 'success', deploy: 'success' });
    expect((await vote(a3, 'late')).json().code).toBe('approval_decided');
    const events = (await admin.get(`/api/project/${p}/events`))
      .json<Array<{ description: string }>>()
      .map((e) => e.description);
    expect(events).toEqual(
      expect.arrayContaining([expect.stringMatching(new RegExp(`^${a1.username} approved .*: first$`))]),
    );

    // A gate nobody decides in time: its timeout rejects it, and the failure edge runs the rollback.
    const timed = await createWorkflow(admin, p, {
      nodes: [
        { id: 'gate', type: 'approval', approvers: { users: [a1.id] }, timeout_seconds: 3600, on_timeout: 'reject' },
        tnode('deploy', tpl['ok.sh']),
        tnode('rollback', tpl['ok.sh']),
      ],
      edges: [
        { from: 'gate', to: 'deploy', on: 'success' },
        { from: 'gate', to: 'rollback', on: 'failure' },
      ],
    });
    const second = await startRun(admin, p, timed);
    const gated = await waitRun(admin, p, timed, second.id, (r) => nodeOf(r, 'gate').status === 'waiting_approval');
    const timedAid = nodeOf(gated, 'gate').approval_id!;
    await t()
      .db.db.updateTable('approval')
      .set({ deadline: new Date(Date.now() - 1000).toISOString() })
      .where('id', '=', timedAid)
      .execute();
    const ended = await waitRun(admin, p, timed, second.id);
    expect(statuses(ended)).toEqual({ gate: 'failed', deploy: 'skipped', rollback: 'success' });
    expect(ended.status).toBe('success');
    expect((await admin.get(`/api/project/${p}/approvals/${timedAid}`)).json()).toMatchObject({
      status: 'rejected',
      decided_by: 'timeout',
    });
  });

  it('shows a template node whose template needs approval as waiting for it, then runs it once approved', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const { p, tpl } = await wfProject(admin);
    const approver = await signedInUser(t());
    await addMember(t(), p, approver.id, 'manager');
    await requireApproval(admin, p, tpl['in.sh'], approver.id);
    const w = await createWorkflow(admin, p, { nodes: [tnode('guarded', tpl['in.sh'])] });
    const { id } = await startRun(admin, p, w);
    const waiting = await waitRun(admin, p, w, id, (r) => nodeOf(r, 'guarded').status === 'waiting_approval');
    const taskId = nodeOf(waiting, 'guarded').task_ids[0]!;
    const pending = (await approver.get(`/api/project/${p}/approvals`)).json<
      Array<{ id: number; task_id: number | null }>
    >();
    const approval = pending.find((a) => a.task_id === taskId)!;
    expect(
      (await approver.post(`/api/project/${p}/approvals/${approval.id}/approve`, { comment: 'ok' })).statusCode,
    ).toBe(200);
    const run = await waitRun(admin, p, w, id);
    expect(run.status).toBe('success');
    expect(nodeOf(run, 'guarded')).toMatchObject({ status: 'success', attempts: 1, task_ids: [taskId] });
  });

  it('answers 404 for runs of other projects and workflows, lets guests read but not start, and keeps templates a workflow runs', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const { p, tpl } = await wfProject(admin);
    const w = await createWorkflow(admin, p, { nodes: [tnode('a', tpl['ok.sh'])] });
    const { id } = await startRun(admin, p, w);
    await waitRun(admin, p, w, id);
    const otherP = await createProject(admin);
    const notFound = async (url: string, code: string) => {
      const r = await admin.get(url);
      expect([r.statusCode, r.json().code]).toEqual([404, code]);
    };
    await notFound(`/api/project/${p}/workflows/${w}/runs/999999`, 'workflow_run_not_found');
    await notFound(`/api/project/${otherP}/workflows/${w}/runs/${id}`, 'workflow_run_not_found');
    await notFound(`/api/project/${otherP}/workflows/${w}/runs`, 'workflow_not_found');
    const w2 = await createWorkflow(admin, p, { nodes: [tnode('b', tpl['ok.sh'])] });
    await notFound(`/api/project/${p}/workflows/${w2}/runs/${id}`, 'workflow_run_not_found');
    expect((await admin.post(`/api/project/${otherP}/workflows/${w}/runs/${id}/stop`)).statusCode).toBe(404);
    expect((await admin.post(`/api/project/${p}/workflows/999999/runs`)).statusCode).toBe(404);
    expect((await admin.get(`/api/project/${p}/workflows/${w}/runs/abc`)).statusCode).toBe(400);

    const guest = await signedInUser(t());
    await addMember(t(), p, guest.id, 'guest');
    expect((await guest.get(`/api/project/${p}/workflows/${w}/runs/${id}`)).statusCode).toBe(200);
    expect((await guest.post(`/api/project/${p}/workflows/${w}/runs`)).statusCode).toBe(403);
    expect((await guest.post(`/api/project/${p}/workflows/${w}/runs/${id}/rerun`)).statusCode).toBe(403);
    expect((await guest.post(`/api/project/${p}/workflows/${w}/runs/${id}/resume`)).statusCode).toBe(403);
    const runner = await signedInUser(t());
    await addMember(t(), p, runner.id, 'task_runner');
    const byRunner = await startRun(runner, p, w);
    expect(byRunner.user_id).toBe(runner.id);
    expect((await waitRun(runner, p, w, byRunner.id)).status).toBe('success');
    const stranger = await signedInUser(t());
    expect((await stranger.get(`/api/project/${p}/workflows/${w}/runs/${id}`)).statusCode).toBe(404);

    const del = await admin.del(`/api/project/${p}/templates/${tpl['ok.sh']}`);
    expect([del.statusCode, del.json()]).toEqual([409, expect.objectContaining({ code: 'template_in_workflow' })]);
  });
});
