import { WORKFLOW_NODE_APPROVAL_ERRORS } from '@gantry/contracts';
import { describe, expect, it } from 'vitest';
import { addMember, engines, signedInUser, useTestApp } from '../../test/harness.js';
import {
  createWorkflow,
  nodeOf,
  requireApproval,
  startRun,
  tnode,
  waitRun,
  wfProject,
} from '../../test/workflow-runs.js';

/** What a run says of its approvals: why a gate failed, and which approval or nested run each node leads to. */
describe.each(engines)('workflow run approvals ($name)', (engine) => {
  const t = useTestApp(engine);

  it('says a gate nobody answered timed out, and one an approver refused was rejected', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const { p } = await wfProject(admin);
    const approver = await signedInUser(t());
    await addMember(t(), p, approver.id, 'guest');
    const w = await createWorkflow(admin, p, {
      nodes: [{ id: 'gate', type: 'approval', approvers: { users: [approver.id] }, timeout_seconds: 3600 }],
    });
    const first = await startRun(admin, p, w);
    const waiting = await waitRun(admin, p, w, first.id, (r) => nodeOf(r, 'gate').status === 'waiting_approval');
    const aid = nodeOf(waiting, 'gate').approval_id!;
    await t()
      .db.db.updateTable('approval')
      .set({ deadline: new Date(Date.now() - 1000).toISOString() })
      .where('id', '=', aid)
      .execute();
    const timedOut = await waitRun(admin, p, w, first.id);
    expect(nodeOf(timedOut, 'gate')).toMatchObject({
      status: 'failed',
      error: WORKFLOW_NODE_APPROVAL_ERRORS.timedOut,
      approval_id: aid,
    });
    expect((await admin.get(`/api/project/${p}/approvals/${aid}`)).json()).toMatchObject({
      status: 'rejected',
      decided_by: 'timeout',
    });

    const second = await startRun(admin, p, w);
    const gated = await waitRun(admin, p, w, second.id, (r) => nodeOf(r, 'gate').status === 'waiting_approval');
    const refused = nodeOf(gated, 'gate').approval_id!;
    expect((await approver.post(`/api/project/${p}/approvals/${refused}/reject`, { comment: 'no' })).statusCode).toBe(
      200,
    );
    expect(nodeOf(await waitRun(admin, p, w, second.id), 'gate')).toMatchObject({
      status: 'failed',
      error: WORKFLOW_NODE_APPROVAL_ERRORS.rejected,
    });
  });

  it('links a template node to the approval its task waited for, and a nested node to its child run’s workflow', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const { p, tpl } = await wfProject(admin);
    const approver = await signedInUser(t());
    await addMember(t(), p, approver.id, 'manager');
    await requireApproval(admin, p, tpl['in.sh'], approver.id);
    const child = await createWorkflow(admin, p, { nodes: [tnode('inner', tpl['ok.sh'])] });
    const w = await createWorkflow(admin, p, {
      nodes: [tnode('guarded', tpl['in.sh']), { id: 'nested', type: 'workflow', workflow_id: child }],
      edges: [{ from: 'guarded', to: 'nested', on: 'success' }],
    });
    const { id } = await startRun(admin, p, w);
    const waiting = await waitRun(admin, p, w, id, (r) => nodeOf(r, 'guarded').status === 'waiting_approval');
    const taskId = nodeOf(waiting, 'guarded').task_ids[0]!;
    const [approval] = (await admin.get(`/api/project/${p}/approvals?status=all&task_id=${taskId}`)).json<
      Array<{ id: number }>
    >();
    expect(nodeOf(waiting, 'guarded').approval_id).toBe(approval!.id);
    expect(nodeOf(waiting, 'nested')).toMatchObject({ child_run_id: null, child_workflow_id: null });
    expect((await approver.post(`/api/project/${p}/approvals/${approval!.id}/approve`, {})).statusCode).toBe(200);
    const run = await waitRun(admin, p, w, id);
    expect(run.status).toBe('success');
    // Went through it: the link stays.
    expect(nodeOf(run, 'guarded')).toMatchObject({ status: 'success', approval_id: approval!.id });
    const nested = nodeOf(run, 'nested');
    expect(nested).toMatchObject({ status: 'success', approval_id: null, child_workflow_id: child });
    const childRun = await admin.get(`/api/project/${p}/workflows/${child}/runs/${nested.child_run_id}`);
    expect([childRun.statusCode, childRun.json().parent_run_id]).toEqual([200, id]);
  });
});
