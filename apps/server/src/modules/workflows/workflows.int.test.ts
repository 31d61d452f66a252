import { describe, expect, it } from 'vitest';
import { gitRepo } from '../../test/git-fixture.js';
import { addMember, createProject, engines, signedInUser, useTestApp, type Caller } from '../../test/harness.js';
import { setupTemplate } from '../../test/tasks.js';

const node = (id: string, template_id: number, extra: object = {}) => ({ id, type: 'template', template_id, ...extra });

describe.each(engines)('workflows ($name)', (engine) => {
  const t = useTestApp(engine);

  /** A project with two templates: `locked` allows no override, `open` allows branch, limit, inventory and extra variables. */
  async function project(admin: Caller) {
    const p = await createProject(admin);
    const repo = gitRepo({ 'a.sh': 'echo a\n' });
    const locked = await setupTemplate(admin, p, repo, { app: 'bash', playbook: 'a.sh', survey_vars: [{ name: 'region', title: 'Region', type: '' }] });
    const made = await admin.post(`/api/project/${p}/templates`, {
        name: 'open',
        app: 'bash',
        playbook: 'a.sh',
        repository_id: locked.repositoryId,
        environment_id: locked.environmentId,
        allow_override_branch_in_task: true,
        allow_extra_vars_in_task: true,
        task_params: { allow_override_limit: true, allow_override_inventory: true },
      });
    expect(made.statusCode, made.body).toBe(201);
    const open = made.json<{ id: number }>().id;
    return { p, locked: locked.templateId, open, environmentId: locked.environmentId, keyId: locked.keyId };
  }

  it('creates, reads, lists, replaces and deletes a workflow; members read it, task runners cannot change it', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const { p, locked, open } = await project(admin);
    const body = {
      name: 'Release',
      description: 'build, approve, deploy',
      nodes: [
        node('build', locked),
        { id: 'approve', type: 'approval', approvers: { roles: ['owner'] }, required_approvals: 1, timeout_seconds: 3600 },
        node('deploy', open, { retries: 2, retry_delay_seconds: 30, params: { git_branch: 'release', limit: 'web1', environment: { region: 'eu', extra: 1 } } }),
        node('rollback', locked),
      ],
      edges: [
        { from: 'build', to: 'approve', on: 'success' },
        { from: 'approve', to: 'deploy', on: 'success' },
        { from: 'deploy', to: 'rollback', on: 'failure' },
      ],
    };
    const created = await admin.post(`/api/project/${p}/workflows`, body);
    expect(created.statusCode).toBe(201);
    const w = created.json<{ id: number }>();
    expect(created.json()).toMatchObject({ project_id: p, name: 'Release', joins: {}, nodes: [{ id: 'build', retries: 0 }, { id: 'approve', on_timeout: 'reject' }, { id: 'deploy', retries: 2 }, { id: 'rollback' }] });
    expect((await admin.get(`/api/project/${p}/workflows/${w.id}`)).json()).toEqual(created.json());

    const runner = await signedInUser(t());
    await addMember(t(), p, runner.id, 'task_runner');
    expect((await runner.get(`/api/project/${p}/workflows`)).json()).toHaveLength(1);
    expect((await runner.put(`/api/project/${p}/workflows/${w.id}`, { ...body, name: 'x' })).statusCode).toBe(403);
    expect((await runner.del(`/api/project/${p}/workflows/${w.id}`)).statusCode).toBe(403);
    const stranger = await signedInUser(t());
    expect((await stranger.get(`/api/project/${p}/workflows/${w.id}`)).statusCode).toBe(404);
    // Another project's id is not found there.
    const other = await createProject(admin);
    expect((await admin.get(`/api/project/${other}/workflows/${w.id}`)).json()).toMatchObject({ code: 'workflow_not_found' });

    // A partial PUT keeps what it leaves out.
    expect((await admin.put(`/api/project/${p}/workflows/${w.id}`, { name: 'Release 2' })).statusCode).toBe(204);
    const after = (await admin.get(`/api/project/${p}/workflows/${w.id}`)).json();
    expect(after).toMatchObject({ name: 'Release 2', description: 'build, approve, deploy' });
    expect(after.nodes).toHaveLength(4);
    const audit = (await admin.get(`/api/audit?project_id=${p}&object_type=workflow`)).json<{ action: string }[]>();
    expect(audit.map((e) => e.action)).toEqual(['update', 'create']);

    expect((await admin.del(`/api/project/${p}/workflows/${w.id}`)).statusCode).toBe(204);
    expect((await admin.get(`/api/project/${p}/workflows`)).json()).toEqual([]);
  });

  it('refuses, naming the node, what the graph or the project does not allow, and changes nothing', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const { p, locked, open } = await project(admin);
    const other = await project(admin);
    const refuse = async (body: object, expected: object) => {
      const r = await admin.post(`/api/project/${p}/workflows`, { name: 'w', ...body });
      expect(r.statusCode).toBe(400);
      expect(r.json()).toMatchObject(expected);
      expect(JSON.stringify(r.json())).not.toMatch(/at |\.ts:/);
    };
    await refuse(
      { nodes: [node('a', locked), node('b', locked)], edges: [{ from: 'a', to: 'b', on: 'success' }, { from: 'b', to: 'a', on: 'always' }] },
      { code: 'workflow_cycle', field: 'edges', error: expect.stringMatching(/^Node "[ab]" is on a cycle/) },
    );
    await refuse({ nodes: [node('a', other.locked)] }, { code: 'workflow_node_not_in_project', node: 'a', field: 'nodes.0.template_id', label_key: 'template' });
    await refuse({ nodes: [node('a', locked, { params: { git_branch: 'dev' } })] }, { code: 'workflow_override_not_allowed', node: 'a', label_key: 'branch', field: 'nodes.0.params.git_branch' });
    await refuse({ nodes: [node('a', locked, { params: { limit: 'web1' } })] }, { code: 'workflow_override_not_allowed', label_key: 'limit' });
    await refuse({ nodes: [node('a', locked, { params: { environment: { not_in_survey: 1 } } })] }, { code: 'workflow_override_not_allowed', label_key: 'extra_variables' });
    await refuse({ nodes: [node('a', open, { params: { environment_id: other.environmentId } })] }, { code: 'workflow_node_not_in_project', label_key: 'variable_group' });
    const inv = (await admin.post(`/api/project/${other.p}/inventory`, { name: 'i', type: 'static', inventory: 'web1', ssh_key_id: other.keyId })).json<{ id: number }>().id;
    await refuse({ nodes: [node('a', open, { params: { inventory_id: inv } })] }, { code: 'workflow_node_not_in_project', label_key: 'inventory' });
    // A template that offers a list of inventories and branches: a node chooses among them, as a task does.
    const mine = async (name: string) =>
      (await admin.post(`/api/project/${p}/inventory`, { name, type: 'static', inventory: 'web1' })).json<{ id: number }>().id;
    const [offered, notOffered] = [await mine('offered'), await mine('not offered')];
    const tpl = (await admin.get(`/api/project/${p}/templates/${open}`)).json<{ task_params: object }>();
    const put = await admin.put(`/api/project/${p}/templates/${open}`, {
      task_params: { ...tpl.task_params, inventory_choices: [offered], branch_choices: ['main'] },
    });
    expect(put.statusCode, put.body).toBe(204);
    await refuse({ nodes: [node('a', open, { params: { inventory_id: notOffered } })] }, { code: 'run_choice_not_offered', label_key: 'inventory', field: 'nodes.0.params.inventory_id' });
    await refuse({ nodes: [node('a', open, { params: { git_branch: 'dev' } })] }, { code: 'run_choice_not_offered', label_key: 'branch', field: 'nodes.0.params.git_branch' });
    const stranger = await signedInUser(t());
    await refuse({ nodes: [{ id: 'ok', type: 'approval', approvers: { users: [stranger.id] } }] }, { code: 'workflow_node_not_in_project', label_key: 'user', field: 'nodes.0.approvers.users.0' });
    await refuse({ nodes: [{ id: 'sub', type: 'workflow', workflow_id: 999999 }] }, { code: 'workflow_node_not_in_project', label_key: 'workflow' });
    // The survey's own answers are always a node's to give.
    expect((await admin.post(`/api/project/${p}/workflows`, { name: 'ok', nodes: [node('a', locked, { params: { environment: { region: 'eu' } } })], edges: [] })).statusCode).toBe(201);
    const chosen = await admin.post(`/api/project/${p}/workflows`, { name: 'chosen', nodes: [node('a', open, { params: { inventory_id: offered, git_branch: 'main' } })], edges: [] });
    expect(chosen.statusCode, chosen.body).toBe(201);
    expect((await admin.get(`/api/project/${p}/workflows`)).json()).toHaveLength(2);
  });

  it("checks a node's answers against its template's parameter types and rules on save, naming the node", async () => {
    const admin = await signedInUser(t(), { admin: true });
    const p = await createProject(admin);
    const typed = await setupTemplate(admin, p, gitRepo({ 'a.sh': 'echo a\n' }), {
      app: 'bash',
      playbook: 'a.sh',
      survey_vars: [
        { name: 'count', title: 'Count', type: 'int', min: 1, max: 5 },
        { name: 'flag', title: 'Flag', type: 'boolean' },
        { name: 'tier', title: 'Tier', type: 'enum', values: [{ name: 'Web', value: 'web' }] },
        { name: 'code', title: 'Code', type: '', regex: '^[a-z]+$', required: true },
      ],
    });
    const save = (environment: object) =>
      admin.post(`/api/project/${p}/workflows`, {
        name: 'w',
        nodes: [node('first', typed.templateId), node('deploy', typed.templateId, { params: { environment } })],
        edges: [],
      });
    const refused = async (environment: object, expected: object) => {
      const r = await save(environment);
      expect(r.statusCode, r.body).toBe(400);
      expect(r.json()).toMatchObject({ node: 'deploy', ...expected });
      expect(r.json<{ error: string }>().error).toMatch(/^Node "deploy": /);
    };
    await refused({ count: 'many' }, { code: 'survey_value_integer', field: 'nodes.1.params.environment.count', title: 'Count' });
    await refused({ count: 9 }, { field: 'nodes.1.params.environment.count', title: 'Count' });
    await refused({ flag: 'perhaps' }, { field: 'nodes.1.params.environment.flag', title: 'Flag' });
    await refused({ tier: 'db' }, { field: 'nodes.1.params.environment.tier', title: 'Tier' });
    await refused({ code: 'UPPER' }, { field: 'nodes.1.params.environment.code', title: 'Code' });
    expect((await admin.get(`/api/project/${p}/workflows`)).json()).toEqual([]);
    // Valid answers are saved; a required one may be left to the run (an integration may bring it).
    const ok = await save({ count: '3', flag: 'true', tier: 'web' });
    expect(ok.statusCode, ok.body).toBe(201);
  });

  it('nests workflows without a chain that runs itself, and keeps a nested workflow while another runs it', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const { p, locked } = await project(admin);
    const post = async (name: string, nodes: object[]) => admin.post(`/api/project/${p}/workflows`, { name, nodes });
    const inner = (await post('inner', [node('a', locked)])).json<{ id: number }>().id;
    const outer = (await post('outer', [{ id: 'run-inner', type: 'workflow', workflow_id: inner }])).json<{ id: number }>().id;
    // inner → outer → inner would never end.
    const loop = await admin.put(`/api/project/${p}/workflows/${inner}`, { name: 'inner', nodes: [{ id: 'back', type: 'workflow', workflow_id: outer }] });
    expect(loop.statusCode).toBe(400);
    expect(loop.json()).toMatchObject({ code: 'workflow_nested_cycle', node: 'back', field: 'nodes.0.workflow_id' });
    const self = await admin.put(`/api/project/${p}/workflows/${inner}`, { name: 'inner', nodes: [{ id: 'me', type: 'workflow', workflow_id: inner }] });
    expect(self.json()).toMatchObject({ code: 'workflow_nested_cycle', node: 'me' });
    expect((await admin.get(`/api/project/${p}/workflows/${inner}`)).json().nodes).toMatchObject([{ id: 'a' }]);

    const inUse = await admin.del(`/api/project/${p}/workflows/${inner}`);
    expect([inUse.statusCode, inUse.json()]).toEqual([409, expect.objectContaining({ code: 'workflow_in_use', name: 'outer' })]);
    expect((await admin.del(`/api/project/${p}/workflows/${outer}`)).statusCode).toBe(204);
    expect((await admin.del(`/api/project/${p}/workflows/${inner}`)).statusCode).toBe(204);
  });
});
