import type { WorkflowRunSummary } from '@gantry/contracts';
import { describe, expect, it } from 'vitest';
import { engines, signedInUser, useTestApp } from '../../test/harness.js';
import { deliver, githubPush, hmac } from '../../test/webhooks.js';
import { taskLog } from '../../test/tasks.js';
import { createWorkflow, nodeOf, tnode, waitRun, wfProject } from '../../test/workflow-runs.js';

describe.each(engines)('integrations that start a workflow ($name)', (engine) => {
  const t = useTestApp(engine);

  it('take a template or a workflow of the project, exactly one', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const { p, tpl } = await wfProject(admin);
    const w = await createWorkflow(admin, p, { nodes: [tnode('a', tpl['ok.sh'])] });
    const other = await wfProject(admin);
    const otherWf = await createWorkflow(admin, other.p, { nodes: [tnode('a', other.tpl['ok.sh'])] });
    const bad = async (body: object, code: string, field: string) => {
      const r = await admin.post(`/api/project/${p}/integrations`, { name: 'n', ...body });
      expect([r.statusCode, r.json().code, r.json().field]).toEqual([400, code, field]);
    };
    await bad({ template_id: tpl['ok.sh'], workflow_id: w }, 'template_or_workflow_required', 'workflow_id');
    await bad({}, 'field_required', 'template_id');
    await bad({ workflow_id: otherWf }, 'not_in_project', 'workflow_id');

    const created = await admin.post(`/api/project/${p}/integrations`, { name: 'deploy hook', workflow_id: w });
    expect(created.statusCode).toBe(201);
    const wfName = (await admin.get(`/api/project/${p}/workflows/${w}`)).json().name;
    expect(created.json()).toMatchObject({ name: 'deploy hook', template_id: 0, workflow_id: w, tpl_name: wfName });
    const id = created.json().id;
    // A partial PUT naming a template switches it to the template (and back).
    expect(
      (await admin.put(`/api/project/${p}/integrations/${id}`, { name: 'deploy hook', template_id: tpl['ok.sh'] }))
        .statusCode,
    ).toBe(204);
    expect((await admin.get(`/api/project/${p}/integrations/${id}`)).json()).toMatchObject({
      template_id: tpl['ok.sh'],
      workflow_id: null,
      tpl_name: 'ok.sh',
    });
    expect(
      (await admin.put(`/api/project/${p}/integrations/${id}`, { name: 'deploy hook', workflow_id: w })).statusCode,
    ).toBe(204);
    expect((await admin.get(`/api/project/${p}/integrations`)).json()).toEqual([
      expect.objectContaining({ id, template_id: 0, workflow_id: w }),
    ]);
    expect((await admin.get(`/api/project/${other.p}/integrations/${id}`)).statusCode).toBe(404);
  });

  it('keep the workflow they start from being deleted; its own schedules go with it', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const { p, tpl } = await wfProject(admin);
    const w = await createWorkflow(admin, p, { nodes: [tnode('a', tpl['ok.sh'])] });
    const hook = (await admin.post(`/api/project/${p}/integrations`, { name: 'hook', workflow_id: w })).json().id;
    const nightly = (
      await admin.post(`/api/project/${p}/schedules`, { name: 'nightly', workflow_id: w, cron_format: '0 3 * * *' })
    ).json().id;
    const refs = {
      templates: [],
      inventories: [],
      repositories: [],
      schedules: [{ id: nightly, name: 'nightly' }],
      integrations: [{ id: hook, name: 'hook' }],
    };
    expect((await admin.get(`/api/project/${p}/workflows/${w}/refs`)).json()).toEqual(refs);
    const refused = await admin.del(`/api/project/${p}/workflows/${w}`);
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toMatchObject({ code: 'workflow_has_integrations', references: refs });
    expect((await admin.get(`/api/project/${p}/workflows/${w}`)).statusCode).toBe(200);
    expect((await admin.del(`/api/project/${p}/integrations/${hook}`)).statusCode).toBe(204);
    expect((await admin.del(`/api/project/${p}/workflows/${w}`)).statusCode).toBe(204);
    expect((await admin.get(`/api/project/${p}/schedules/${nightly}`)).statusCode).toBe(404);
  });

  it('a matching webhook delivery starts a run of the workflow, which runs its real tasks', async () => {
    const ctx = t();
    const admin = await signedInUser(ctx, { admin: true });
    const { p, tpl } = await wfProject(admin);
    const w = await createWorkflow(admin, p, {
      nodes: [tnode('build', tpl['ok.sh']), tnode('test', tpl['in.sh']), tnode('who', tpl['who.sh'])],
      edges: [
        { from: 'build', to: 'test', on: 'success' },
        { from: 'test', to: 'who', on: 'success' },
      ],
    });
    const key = (
      await admin.post(`/api/project/${p}/keys`, {
        name: 'gh',
        type: 'login_password',
        login_password: { login: 'hook', password: 'gh-secret' },
      })
    ).json().id;
    const base = `/api/project/${p}/integrations`;
    const hook = (
      await admin.post(base, { name: 'github push', workflow_id: w, auth_method: 'github', auth_secret_id: key })
    ).json().id;
    expect(
      (
        await admin.post(`${base}/${hook}/matchers`, {
          name: 'main',
          match_type: 'body',
          body_data_type: 'json',
          key: 'ref',
          method: 'equals',
          value: 'refs/heads/main',
        })
      ).statusCode,
    ).toBe(201);
    // What the delivery says reaches each node's task, as it would the integration's own task.
    expect(
      (
        await admin.post(`${base}/${hook}/values`, {
          name: 'ref',
          value_source: 'body',
          body_data_type: 'json',
          key: 'ref',
          variable_type: 'environment',
          variable: 'WHO',
        })
      ).statusCode,
    ).toBe(201);
    const alias = (await admin.post(`${base}/${hook}/aliases`)).json().alias;
    const send = (ref: string, id: string) => {
      const body = JSON.stringify(githubPush(ref));
      return deliver(ctx, alias, body, {
        'content-type': 'application/json',
        'x-github-event': 'push',
        'x-github-delivery': id,
        'x-hub-signature-256': `sha256=${hmac('gh-secret', body)}`,
      });
    };
    const runs = async () => (await admin.get(`/api/project/${p}/workflows/${w}/runs`)).json<WorkflowRunSummary[]>();

    // Not matching: accepted, nothing started.
    expect((await send('refs/heads/develop', 'd-1')).statusCode).toBe(204);
    expect(await runs()).toEqual([]);
    // Matching: one run, as the integration's.
    const ok = await send('refs/heads/main', 'd-2');
    expect([ok.statusCode, ok.body]).toEqual([204, '']);
    const [run, ...more] = await runs();
    expect(more).toEqual([]);
    expect(run).toMatchObject({ workflow_id: w, integration_id: hook, schedule_id: null, user_id: null });
    // The same delivery again is a repeat: no second run.
    expect((await send('refs/heads/main', 'd-2')).statusCode).toBe(200);
    expect(await runs()).toHaveLength(1);
    const events = (await admin.get(`/api/project/${p}/events/last`))
      .json()
      .map((e: { description: string }) => e.description);
    expect(events).toContain(`Integration github push started workflow run #${run!.id}`);
    const done = await waitRun(admin, p, w, run!.id);
    expect(done.nodes.map((n) => [n.id, n.status])).toEqual([
      ['build', 'success'],
      ['test', 'success'],
      ['who', 'success'],
    ]);
    expect(await taskLog(admin, p, nodeOf(done, 'who').task_ids[0]!)).toContain('who=refs/heads/main');
    expect(done.status).toBe('success');
  });
});
