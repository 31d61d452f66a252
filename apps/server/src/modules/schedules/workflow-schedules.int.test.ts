import { randomBytes } from 'node:crypto';
import type { WorkflowRunSummary } from '@gantry/contracts';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../../app.js';
import { createDb } from '../../db/db.js';
import { addMember, createProject, engines, signedInUser, useTestApp } from '../../test/harness.js';
import { createWorkflow, tnode, waitRun, wfProject } from '../../test/workflow-runs.js';

describe.each(engines)('workflow schedules ($name)', (engine) => {
  const t = useTestApp(engine);

  it('takes a template or a workflow of the project, exactly one; no "run on new commit" for a workflow', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const { p, tpl } = await wfProject(admin);
    const w = await createWorkflow(admin, p, { nodes: [tnode('a', tpl['ok.sh'])] });
    const other = await wfProject(admin);
    const otherWf = await createWorkflow(admin, other.p, { nodes: [tnode('a', other.tpl['ok.sh'])] });
    const repositoryId = (await admin.get(`/api/project/${p}/repositories`)).json()[0].id;
    const bad = async (body: object, code: string, field: string) => {
      const r = await admin.post(`/api/project/${p}/schedules`, { name: 'n', cron_format: '* * * * *', ...body });
      expect([r.statusCode, r.json().code, r.json().field]).toEqual([400, code, field]);
      return r.json();
    };
    expect(
      await bad({ template_id: tpl['ok.sh'], workflow_id: w }, 'template_or_workflow_required', 'workflow_id'),
    ).toMatchObject({ error: 'Give a template or a workflow, not both' });
    // Neither: what Semaphore answers a body without its template.
    expect(await bad({}, 'field_required', 'template_id')).toMatchObject({
      error: 'Template is required',
      label_key: 'template',
    });
    expect(await bad({ workflow_id: otherWf }, 'not_in_project', 'workflow_id')).toMatchObject({
      label_key: 'workflow',
    });
    expect(await bad({ workflow_id: 'abc' }, 'field_required', 'workflow_id')).toMatchObject({ label_key: 'workflow' });
    await bad({ workflow_id: w, repository_id: repositoryId }, 'commit_schedule_template_only', 'repository_id');

    const created = await admin.post(`/api/project/${p}/schedules`, {
      name: 'wf nightly',
      workflow_id: w,
      template_id: 0,
      cron_format: '0 3 * * *',
    });
    expect(created.statusCode).toBe(201);
    const wfName = (await admin.get(`/api/project/${p}/workflows/${w}`)).json().name;
    // template_id 0 (a number, as Semaphore's clients read it), the workflow's name as tpl_name.
    expect(created.json()).toMatchObject({
      name: 'wf nightly',
      template_id: 0,
      workflow_id: w,
      tpl_name: wfName,
      repository_id: null,
    });
    const id = created.json().id;
    // Switched to a template and back: exactly one at a time.
    const put = await admin.put(`/api/project/${p}/schedules/${id}`, {
      name: 'tpl nightly',
      template_id: tpl['ok.sh'],
      cron_format: '0 3 * * *',
    });
    expect([put.statusCode, put.body]).toEqual([204, '']);
    expect((await admin.get(`/api/project/${p}/schedules/${id}`)).json()).toMatchObject({
      template_id: tpl['ok.sh'],
      workflow_id: null,
      tpl_name: 'ok.sh',
    });
    expect(
      (
        await admin.put(`/api/project/${p}/schedules/${id}`, {
          name: 'wf nightly',
          workflow_id: w,
          cron_format: '0 3 * * *',
        })
      ).statusCode,
    ).toBe(204);
    expect((await admin.get(`/api/project/${p}/schedules`)).json()).toEqual([
      expect.objectContaining({ id, template_id: 0, workflow_id: w, tpl_name: wfName }),
    ]);
    // The other project cannot read it.
    expect((await admin.get(`/api/project/${other.p}/schedules/${id}`)).statusCode).toBe(404);
    // A workflow's schedules go with it.
    const gone = await createWorkflow(admin, p, { nodes: [tnode('a', tpl['ok.sh'])] });
    const goneSchedule = (
      await admin.post(`/api/project/${p}/schedules`, { name: 'x', workflow_id: gone, cron_format: '0 3 * * *' })
    ).json().id;
    expect((await admin.del(`/api/project/${p}/workflows/${gone}`)).statusCode).toBe(204);
    expect((await admin.get(`/api/project/${p}/schedules/${goneSchedule}`)).statusCode).toBe(404);
  });

  it('a member without the right to manage resources cannot create one', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const p = await createProject(admin);
    const guest = await signedInUser(t());
    await addMember(t(), p, guest.id, 'guest');
    const r = await guest.post(`/api/project/${p}/schedules`, { name: 'x', workflow_id: 1, cron_format: '* * * * *' });
    expect(r.statusCode).toBe(403);
  });

  it('a due workflow schedule starts one run across two servers, which runs its real task', async () => {
    const ctx = t();
    const admin = await signedInUser(ctx, { admin: true });
    const { p, tpl } = await wfProject(admin);
    const w = await createWorkflow(admin, p, {
      nodes: [tnode('build', tpl['ok.sh']), tnode('test', tpl['in.sh'])],
      edges: [{ from: 'build', to: 'test', on: 'success' }],
    });
    const id = (
      await admin.post(`/api/project/${p}/schedules`, {
        name: 'every minute',
        workflow_id: w,
        cron_format: '* * * * *',
      })
    ).json().id;
    const db2 = createDb(ctx.config.dbUrl);
    const app2 = await buildApp({ config: ctx.config, db: db2, secretKey: randomBytes(32), nodeId: 'second-node' });
    try {
      const at = new Date(Date.now() + 61_000);
      const fired = await Promise.all([
        ctx.app.services.scheduler.tick(at),
        app2.services.scheduler.tick(at),
        ctx.app.services.scheduler.tick(at),
      ]);
      expect(fired.reduce((a, b) => a + b, 0)).toBe(1);
      expect(await ctx.app.services.scheduler.tick(at)).toBe(0);
      const runs = (await admin.get(`/api/project/${p}/workflows/${w}/runs`)).json<WorkflowRunSummary[]>();
      expect(runs).toEqual([
        expect.objectContaining({ workflow_id: w, schedule_id: id, integration_id: null, user_id: null }),
      ]);
      // No task of a template was started by the schedule itself: only the run's nodes' tasks.
      const done = await waitRun(admin, p, w, runs[0]!.id);
      expect(done.status).toBe('success');
      expect(done.nodes.map((n) => [n.id, n.status])).toEqual([
        ['build', 'success'],
        ['test', 'success'],
      ]);
      const tasks = (await admin.get(`/api/project/${p}/tasks`)).json<
        Array<{ id: number; schedule_id: number | null }>
      >();
      expect(tasks).toHaveLength(2);
      // Deactivated: nothing more.
      await admin.put(`/api/project/${p}/schedules/${id}/active`, { active: false });
      expect(await ctx.app.services.scheduler.tick(new Date(at.getTime() + 120_000))).toBe(0);
    } finally {
      await app2.close();
      await db2.close();
    }
  });
});
