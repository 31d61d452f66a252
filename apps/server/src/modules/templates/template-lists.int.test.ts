import { describe, expect, it } from 'vitest';
import { gitRepo } from '../../test/git-fixture.js';
import { createProject, engines, signedInUser, useTestApp, type Caller } from '../../test/harness.js';
import { createKey } from '../../test/resources.js';
import { runTask, taskLog, waitForTask } from '../../test/tasks.js';
import { createWorkflow, nodeOf, startRun, statuses, tnode, waitRun } from '../../test/workflow-runs.js';

const SCRIPT = [
  'echo "region=$region tier=$tier zone=$zone A=$A greeting=$GREETING token=$TOKEN pw=$pw"',
  // The first group's token is overridden, yet still a secret of the run: masked wherever it shows.
  'echo "literal tok-one-111"',
  '',
].join('\n');

async function group(c: Caller, p: number, body: Record<string, unknown>): Promise<number> {
  const res = await c.post(`/api/project/${p}/environment`, { json: '{}', env: '{}', ...body });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().id;
}

/** A bash template on three variable groups (merged in this order) and two inventories. */
async function setup(c: Caller, template: Record<string, unknown> = {}) {
  const p = await createProject(c);
  const key = await createKey(c, p);
  const repository_id = (
    await c.post(`/api/project/${p}/repositories`, {
      name: 'r',
      git_url: gitRepo({ 'run.sh': SCRIPT }),
      ssh_key_id: key,
    })
  ).json().id;
  const g1 = await group(c, p, {
    name: 'one',
    json: '{"region": "eu", "tier": "a"}',
    env: '{"GREETING": "hi", "A": "1"}',
    secrets: [{ name: 'TOKEN', secret: 'tok-one-111', type: 'env' }],
  });
  const g2 = await group(c, p, {
    name: 'two',
    json: '{"tier": "b"}',
    env: '{"A": "2"}',
    secrets: [
      { name: 'TOKEN', secret: 'tok-two-222', type: 'env' },
      { name: 'pw', secret: 'pw-two-222', type: 'var' },
    ],
  });
  const g3 = await group(c, p, { name: 'three', json: '{"zone": "z3"}', env: '{"A": "3"}' });
  const i1 = (
    await c.post(`/api/project/${p}/inventory`, { name: 'i1', type: 'static', inventory: 'a', ssh_key_id: key })
  ).json().id;
  const i2 = (
    await c.post(`/api/project/${p}/inventory`, { name: 'i2', type: 'static', inventory: 'b', ssh_key_id: key })
  ).json().id;
  const body = {
    name: 'merge',
    app: 'bash',
    playbook: 'run.sh',
    repository_id,
    environment_ids: [g1, g2, g3],
    ...template,
  };
  const res = await c.post(`/api/project/${p}/templates`, body);
  expect(res.statusCode, res.body).toBe(201);
  return { p, key, repository_id, g1, g2, g3, i1, i2, body, tpl: res.json().id as number };
}

describe.each(engines)('several variable groups and run-time choices ($name)', (engine) => {
  const t = useTestApp(engine);

  it('merges every group of the template in order, later wins (secrets too), and masks every secret', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const s = await setup(admin);
    const tpl = (await admin.get(`/api/project/${s.p}/templates/${s.tpl}`)).json();
    expect(tpl).toMatchObject({
      environment_id: s.g1,
      environment_ids: [s.g1, s.g2, s.g3],
      inventory_id: null,
      inventory_ids: [],
    });
    const id = await runTask(admin, s.p, { template_id: s.tpl });
    const task = await waitForTask(admin, s.p, id);
    const log = await taskLog(admin, s.p, id);
    expect(task.status, log.join('\n')).toBe('success');
    expect(log).toContain('region=eu tier=b zone=z3 A=3 greeting=hi token=********** pw=**********');
    expect(log).toContain('literal **********');
    for (const secret of ['tok-one-111', 'tok-two-222', 'pw-two-222']) expect(log.join('\n')).not.toContain(secret);
  });

  it('runs with the one group a task chooses, when the template allows it and offers that group', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const s = await setup(admin);
    const task = (body: Record<string, unknown>) =>
      admin.post(`/api/project/${s.p}/tasks`, { template_id: s.tpl, ...body });
    const notAllowed = await task({ environment_id: s.g3 });
    expect(notAllowed.statusCode).toBe(400);
    expect(notAllowed.json()).toMatchObject({ code: 'run_choice_not_allowed', field: 'environment_id' });

    const tp = { allow_override_environment: true, environment_choices: [s.g2, s.g3] };
    expect((await admin.put(`/api/project/${s.p}/templates/${s.tpl}`, { ...s.body, task_params: tp })).statusCode).toBe(
      204,
    );
    const notOffered = await task({ environment_id: s.g1 });
    expect(notOffered.statusCode).toBe(400);
    expect(notOffered.json()).toMatchObject({ code: 'run_choice_not_offered', field: 'environment_id' });

    const id = await runTask(admin, s.p, { template_id: s.tpl, environment_id: s.g3 });
    const done = await waitForTask(admin, s.p, id);
    const log = await taskLog(admin, s.p, id);
    expect(done).toMatchObject({ status: 'success', environment_id: s.g3 });
    // The chosen group replaces the template's list: nothing of groups one and two.
    expect(log).toContain('region= tier= zone=z3 A=3 greeting= token= pw=');
  });

  it("runs a workflow node's own group instead of the template's list, and the list for a node without one", async () => {
    const admin = await signedInUser(t(), { admin: true });
    const s = await setup(admin);
    const w = await createWorkflow(admin, s.p, {
      nodes: [tnode('merged', s.tpl), tnode('own', s.tpl, { params: { environment_id: s.g3 } })],
      edges: [],
    });
    const run = await waitRun(admin, s.p, w, (await startRun(admin, s.p, w)).id);
    expect(statuses(run)).toEqual({ merged: 'success', own: 'success' });
    expect(await taskLog(admin, s.p, nodeOf(run, 'merged').task_ids[0]!)).toContain(
      'region=eu tier=b zone=z3 A=3 greeting=hi token=********** pw=**********',
    );
    expect(await taskLog(admin, s.p, nodeOf(run, 'own').task_ids[0]!)).toContain(
      'region= tier= zone=z3 A=3 greeting= token= pw=',
    );
  });

  it('checks the inventory and the branch a task chooses against the choices of the template', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const s = await setup(admin);
    const task = (body: Record<string, unknown>) =>
      admin.post(`/api/project/${s.p}/tasks`, { template_id: s.tpl, ...body });
    // Not allowed: ignored, as Semaphore does.
    const ignored = await runTask(admin, s.p, { template_id: s.tpl, inventory_id: s.i1, git_branch: 'dev' });
    expect(await waitForTask(admin, s.p, ignored)).toMatchObject({ inventory_id: null, git_branch: null });

    const tp = { allow_override_inventory: true, inventory_choices: [s.i2], branch_choices: ['main', 'dev'] };
    const put = await admin.put(`/api/project/${s.p}/templates/${s.tpl}`, {
      ...s.body,
      allow_override_branch_in_task: true,
      task_params: tp,
    });
    expect(put.statusCode).toBe(204);
    const inv = await task({ inventory_id: s.i1 });
    expect(inv.statusCode).toBe(400);
    expect(inv.json()).toMatchObject({ code: 'run_choice_not_offered', field: 'inventory_id' });
    const branch = await task({ git_branch: 'feature' });
    expect(branch.statusCode).toBe(400);
    expect(branch.json()).toMatchObject({ code: 'run_choice_not_offered', field: 'git_branch' });

    const id = await runTask(admin, s.p, { template_id: s.tpl, inventory_id: s.i2, git_branch: 'main' });
    expect(await waitForTask(admin, s.p, id)).toMatchObject({
      status: 'success',
      inventory_id: s.i2,
      git_branch: 'main',
    });
  });
});

describe.each(engines)('template lists: saving and refusals ($name)', (engine) => {
  const t = useTestApp(engine);
  const read = async (c: Caller, p: number, id: number) => (await c.get(`/api/project/${p}/templates/${id}`)).json();

  it('saves ordered lists, keeps them for a client that knows only the first id, and replaces them otherwise', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const s = await setup(admin);
    const put = (body: Record<string, unknown>) => admin.put(`/api/project/${s.p}/templates/${s.tpl}`, body);
    const semaphore = { name: 'merge', app: 'bash', playbook: 'run.sh', repository_id: s.repository_id };

    expect((await put({ ...s.body, environment_ids: [s.g3, s.g1], inventory_ids: [s.i2, s.i1] })).statusCode).toBe(204);
    expect(await read(admin, s.p, s.tpl)).toMatchObject({
      environment_id: s.g3,
      environment_ids: [s.g3, s.g1],
      inventory_id: s.i2,
      inventory_ids: [s.i2, s.i1],
    });

    // Semaphore's client sends the single ids it read: the lists stay.
    expect(
      (await put({ ...semaphore, environment_id: s.g3, inventory_id: s.i2, environment_ids: null })).statusCode,
    ).toBe(204);
    expect(await read(admin, s.p, s.tpl)).toMatchObject({ environment_ids: [s.g3, s.g1], inventory_ids: [s.i2, s.i1] });

    // Another single id: that one alone (the old extra ones are not kept behind a new first).
    expect((await put({ ...semaphore, environment_id: s.g2, inventory_id: s.i1 })).statusCode).toBe(204);
    expect(await read(admin, s.p, s.tpl)).toMatchObject({
      environment_id: s.g2,
      environment_ids: [s.g2],
      inventory_id: s.i1,
      inventory_ids: [s.i1],
    });

    // A new template from a Semaphore client: one group, one inventory.
    const created = await admin.post(`/api/project/${s.p}/templates`, {
      ...semaphore,
      name: 'single',
      environment_id: s.g1,
    });
    expect(created.json()).toMatchObject({ environment_ids: [s.g1], inventory_ids: [] });
  });

  it('refuses ids of another project, duplicates and a missing group, naming the field', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const s = await setup(admin);
    const other = await setup(admin);
    const post = (body: Record<string, unknown>) =>
      admin.post(`/api/project/${s.p}/templates`, { ...s.body, name: 'x', ...body });

    const foreign = await post({ environment_ids: [s.g1, other.g2] });
    expect(foreign.statusCode).toBe(400);
    expect(foreign.json()).toMatchObject({ code: 'not_in_project', field: 'environment_ids.1' });
    const foreignInventory = await post({ inventory_ids: [s.i1, other.i1] });
    expect(foreignInventory.json()).toMatchObject({ code: 'not_in_project', field: 'inventory_ids.1' });
    const foreignSingle = await post({ environment_ids: undefined, environment_id: other.g1 });
    expect(foreignSingle.json()).toMatchObject({ code: 'not_in_project', field: 'environment_id' });
    const foreignChoice = await post({
      task_params: { allow_override_environment: true, environment_choices: [s.g2, other.g3] },
    });
    expect(foreignChoice.json()).toMatchObject({ code: 'not_in_project', field: 'task_params.environment_choices.1' });

    const twice = await post({ environment_ids: [s.g1, s.g2, s.g1] });
    expect(twice.statusCode).toBe(400);
    expect(twice.json()).toMatchObject({ code: 'duplicate_ids', field: 'environment_ids' });
    expect((await post({ inventory_ids: [s.i1, s.i1] })).json()).toMatchObject({
      code: 'duplicate_ids',
      field: 'inventory_ids',
    });

    const none = await post({ environment_ids: [] });
    expect(none.statusCode).toBe(400);
    expect(none.json()).toMatchObject({ code: 'field_required', field: 'environment_id' });
    expect((await admin.get(`/api/project/${s.p}/templates`)).json()).toHaveLength(1);
  });

  it('refuses deleting a group or an inventory a template uses second or offers at run time', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const s = await setup(admin);
    expect(
      (await admin.put(`/api/project/${s.p}/templates/${s.tpl}`, { ...s.body, inventory_ids: [s.i1, s.i2] }))
        .statusCode,
    ).toBe(204);
    const blocked = await admin.del(`/api/project/${s.p}/environment/${s.g2}`);
    expect(blocked.statusCode).toBe(409);
    expect(blocked.json().references.templates).toEqual([{ id: s.tpl, name: 'merge' }]);
    expect((await admin.get(`/api/project/${s.p}/environment/${s.g2}/refs`)).json().templates).toEqual([
      { id: s.tpl, name: 'merge' },
    ]);
    expect((await admin.del(`/api/project/${s.p}/inventory/${s.i2}`)).statusCode).toBe(409);

    // Offered as a run-time choice only: still in use.
    const extra = await group(admin, s.p, { name: 'four' });
    const tp = { allow_override_environment: true, environment_choices: [extra] };
    expect(
      (
        await admin.put(`/api/project/${s.p}/templates/${s.tpl}`, {
          ...s.body,
          environment_ids: [s.g1],
          task_params: tp,
        })
      ).statusCode,
    ).toBe(204);
    expect((await admin.del(`/api/project/${s.p}/environment/${extra}`)).statusCode).toBe(409);
    // No longer listed: the group can go.
    expect((await admin.del(`/api/project/${s.p}/environment/${s.g2}`)).statusCode).toBe(204);
  });
});
