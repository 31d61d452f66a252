import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runnerTaskSandbox } from '../engine/sandbox.js';
import { RunnerAgent } from '../remote-runner/agent.js';
import { httpRunnerServer } from '../remote-runner/server-client.js';
import { gitRepo } from '../test/git-fixture.js';
import { createProject, engines, signedInUser, useTestApp, type Caller, type TestContext } from '../test/harness.js';
import { taskLog, waitForTask } from '../test/tasks.js';
import { semaphoreRequest } from './tasks-client.js';

// Build and deploy pipelines as Semaphore gives them to a run (issue 20 item 3): Ansible gets the
// extra variable `semaphore_vars.task_details`, every app SEMAPHORE_TASK_TYPE / _TARGET_VERSION /
// _INCOMING_VERSION, and Gantry's GANTRY_TASK_* beside them; all computed by the server.

const WEB_HOST = 'https://gantry.example.com';
const INJECTION = "release {{ lookup('pipe','id') }}";

const BUILD_PLAYBOOK = `
- hosts: all
  gather_facts: false
  tasks:
    - ansible.builtin.debug:
        msg: "building version {{ semaphore_vars.task_details.target_version }}"
    - ansible.builtin.debug:
        msg: "type={{ semaphore_vars.task_details.type }} id={{ semaphore_vars.task_details.id }} id_is_number={{ semaphore_vars.task_details.id is number }} user={{ semaphore_vars.task_details.username }} url={{ semaphore_vars.task_details.url }}"
    - ansible.builtin.debug:
        msg: "message=[{{ semaphore_vars.task_details.message }}] incoming={{ semaphore_vars.task_details.incoming_version | default('none') }}"
`;
const DEPLOY_PLAYBOOK = `
- hosts: all
  gather_facts: false
  tasks:
    - ansible.builtin.debug:
        msg: "deploying version {{ semaphore_vars.task_details.incoming_version }} type={{ semaphore_vars.task_details.type }} target={{ semaphore_vars.task_details.target_version | default('none') }}"
`;
const BUILD_SCRIPT = 'echo "bash build: $SEMAPHORE_TASK_TYPE $SEMAPHORE_TASK_TARGET_VERSION incoming=[${SEMAPHORE_TASK_INCOMING_VERSION:-}]"\necho "gantry: $GANTRY_TASK_TYPE $GANTRY_TASK_TARGET_VERSION $GANTRY_TASK_USERNAME $GANTRY_TASK_URL"\n';
const DEPLOY_SCRIPT = 'echo "bash deploy: $SEMAPHORE_TASK_TYPE $SEMAPHORE_TASK_INCOMING_VERSION target=[${SEMAPHORE_TASK_TARGET_VERSION:-}]"\necho "gantry: $GANTRY_TASK_TYPE $GANTRY_TASK_INCOMING_VERSION user=[${GANTRY_TASK_USERNAME:-}]"\n';
const PLAIN_SCRIPT = 'echo "plain: type=[${SEMAPHORE_TASK_TYPE:-}] gantry=[${GANTRY_TASK_TYPE:-}] user=$GANTRY_TASK_USERNAME"\n';

const REPO_FILES = { 'build.yml': BUILD_PLAYBOOK, 'deploy.yml': DEPLOY_PLAYBOOK, 'build.sh': BUILD_SCRIPT, 'deploy.sh': DEPLOY_SCRIPT, 'plain.sh': PLAIN_SCRIPT };

interface Resources {
  p: number;
  keyId: number;
  repositoryId: number;
  inventoryId: number;
  environmentId: number;
}

/** A project's key, repository, inventory and variable group, created as Semaphore's console sends them. */
async function resources(ctx: TestContext, admin: Caller, environmentJson = '{}'): Promise<Resources> {
  const p = await createProject(admin);
  const send = (url: string, body: Record<string, unknown>) => semaphoreRequest(ctx, { caller: admin }, 'POST', `/api/project/${p}/${url}`, { project_id: p, ...body });
  const id = async (url: string, body: Record<string, unknown>) => {
    const res = await send(url, body);
    expect(res.statusCode, `${url}: ${res.body}`).toBe(201);
    return res.json<{ id: number }>().id;
  };
  const keyId = await id('keys', { name: 'none', type: 'none' });
  const repositoryId = await id('repositories', { name: 'repo', git_url: gitRepo(REPO_FILES), git_branch: 'main', ssh_key_id: keyId });
  const inventoryId = await id('inventory', {
    name: 'local',
    type: 'static',
    inventory: 'localhost ansible_connection=local ansible_python_interpreter=/usr/bin/python3',
    ssh_key_id: keyId,
    become_key_id: null,
  });
  const environmentId = await id('environment', { name: 'vars', json: environmentJson, env: '{}', secrets: [] });
  return { p, keyId, repositoryId, inventoryId, environmentId };
}

/** A template as Semaphore's console's form sends it (snake_case, every field present). */
async function template(ctx: TestContext, admin: Caller, r: Resources, t: Record<string, unknown>): Promise<number> {
  const res = await semaphoreRequest(ctx, { caller: admin }, 'POST', `/api/project/${r.p}/templates`, {
    project_id: r.p,
    inventory_id: r.inventoryId,
    repository_id: r.repositoryId,
    environment_id: r.environmentId,
    view_id: null,
    description: '',
    arguments: '[]',
    allow_override_args_in_task: false,
    start_version: null,
    build_template_id: null,
    autorun: false,
    survey_vars: [],
    vaults: [],
    suppress_success_alerts: false,
    task_params: {},
    ...t,
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json<{ id: number }>().id;
}

/** Queues a task as Semaphore's console does (its run dialog's body). */
async function queue(ctx: TestContext, admin: Caller, p: number, body: Record<string, unknown>) {
  return semaphoreRequest(ctx, { caller: admin }, 'POST', `/api/project/${p}/tasks`, {
    project_id: p,
    debug: false,
    dry_run: false,
    diff: false,
    playbook: '',
    environment: '{}',
    limit: '',
    message: '',
    params: {},
    ...body,
  });
}

async function run(ctx: TestContext, admin: Caller, p: number, body: Record<string, unknown>): Promise<{ id: number; log: string }> {
  const res = await queue(ctx, admin, p, body);
  expect(res.statusCode, res.body).toBe(201);
  const id = res.json<{ id: number }>().id;
  const task = await waitForTask(admin, p, id, undefined, 90_000);
  const log = (await taskLog(admin, p, id)).join('\n');
  expect(task.status, log).toBe('success');
  return { id, log };
}

describe.each(engines)('build and deploy pipelines: semaphore_vars and SEMAPHORE_TASK_* ($name)', (engine) => {
  const t = useTestApp(engine, { GANTRY_WEB_HOST: WEB_HOST });

  it('gives an Ansible build its target version and a deploy its incoming version, as data', async () => {
    const ctx = t();
    const admin = await signedInUser(ctx, { admin: true });
    // A variable group that sets semaphore_vars does not replace the server's.
    const r = await resources(ctx, admin, JSON.stringify({ semaphore_vars: { task_details: { target_version: 'spoofed', incoming_version: 'spoofed' } } }));
    const build = await template(ctx, admin, r, { name: 'build', app: 'ansible', playbook: 'build.yml', type: 'build', start_version: '1.0.1' });
    const deploy = await template(ctx, admin, r, { name: 'deploy', app: 'ansible', playbook: 'deploy.yml', type: 'deploy', build_template_id: build });

    const b = await run(ctx, admin, r.p, { template_id: build, message: INJECTION });
    expect(b.log).toContain('building version 1.0.1');
    expect(b.log).toContain(`type=build id=${b.id} id_is_number=True user=${admin.username} url=${WEB_HOST}/project/${r.p}/history?t=${b.id}`);
    // The message is the author's text: Ansible prints it, it never runs the lookup in it.
    expect(b.log).toContain(`message=[${INJECTION}] incoming=none`);
    expect(b.log).not.toMatch(/uid=\d+/);
    expect(b.log).not.toContain('spoofed');

    const d = await run(ctx, admin, r.p, { template_id: deploy, build_task_id: b.id, message: 'ship it' });
    expect(d.log).toContain('deploying version 1.0.1 type=deploy target=none');
    expect(d.log).not.toContain('spoofed');
  }, 180_000);

  it('gives scripts SEMAPHORE_TASK_* and GANTRY_TASK_*; an autorun deploy has no author', async () => {
    const ctx = t();
    const admin = await signedInUser(ctx, { admin: true });
    const r = await resources(ctx, admin);
    const build = await template(ctx, admin, r, { name: 'build', app: 'bash', playbook: 'build.sh', type: 'build', start_version: '2.3.9' });
    const deploy = await template(ctx, admin, r, { name: 'deploy', app: 'bash', playbook: 'deploy.sh', type: 'deploy', build_template_id: build, autorun: true });
    const plain = await template(ctx, admin, r, { name: 'plain', app: 'bash', playbook: 'plain.sh', type: '' });

    const b = await run(ctx, admin, r.p, { template_id: build });
    expect(b.log).toContain('bash build: build 2.3.9 incoming=[]');
    expect(b.log).toContain(`gantry: build 2.3.9 ${admin.username} ${WEB_HOST}/project/${r.p}/history?t=${b.id}`);

    // The deploy started by the build's success (autorun) deploys its version; nobody started it.
    let auto: { id: number } | undefined;
    for (let i = 0; i < 200 && !auto; i++) {
      auto = (await admin.get(`/api/project/${r.p}/templates/${deploy}/tasks`)).json<Array<{ id: number }>>()[0];
      if (!auto) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(auto).toBeDefined();
    expect((await waitForTask(admin, r.p, auto!.id)).status).toBe('success');
    const log = (await taskLog(admin, r.p, auto!.id)).join('\n');
    expect(log).toContain('bash deploy: deploy 2.3.9 target=[]');
    expect(log).toContain('gantry: deploy 2.3.9 user=[]');

    // A plain template's task is neither: no type, no versions.
    const plainRun = await run(ctx, admin, r.p, { template_id: plain });
    expect(plainRun.log).toContain(`plain: type=[] gantry=[] user=${admin.username}`);
  }, 120_000);

  it('refuses task input and variable groups that would set them', async () => {
    const ctx = t();
    const admin = await signedInUser(ctx, { admin: true });
    const r = await resources(ctx, admin);
    const build = await template(ctx, admin, r, { name: 'build', app: 'ansible', playbook: 'build.yml', type: 'build', start_version: '1.0.1', allow_extra_vars_in_task: true });
    const spoof = await queue(ctx, admin, r.p, { template_id: build, environment: JSON.stringify({ semaphore_vars: { task_details: { target_version: '6.6.6' } } }) });
    expect([spoof.statusCode, spoof.json()]).toEqual([
      400,
      { error: 'Variable semaphore_vars is reserved', code: 'variable_reserved', field: 'environment', variable: 'semaphore_vars' },
    ]);
    const scriptSpoof = await queue(ctx, admin, r.p, { template_id: build, environment: JSON.stringify({ SEMAPHORE_TASK_TARGET_VERSION: '6.6.6' }) });
    expect([scriptSpoof.statusCode, scriptSpoof.json().code]).toEqual([400, 'variable_reserved']);
    expect((await admin.get(`/api/project/${r.p}/tasks`)).json()).toEqual([]);

    // Nor may a survey variable or a variable group's environment variable take those names.
    const survey = await semaphoreRequest(ctx, { caller: admin }, 'POST', `/api/project/${r.p}/templates`, {
      project_id: r.p,
      name: 'survey',
      app: 'ansible',
      playbook: 'build.yml',
      repository_id: r.repositoryId,
      inventory_id: r.inventoryId,
      environment_id: r.environmentId,
      survey_vars: [{ name: 'semaphore_vars', title: 'x', type: '' }],
    });
    expect(survey.statusCode, survey.body).toBe(400);
    const group = await semaphoreRequest(ctx, { caller: admin }, 'POST', `/api/project/${r.p}/environment`, {
      project_id: r.p,
      name: 'spoof',
      json: '{}',
      env: JSON.stringify({ SEMAPHORE_TASK_TYPE: 'deploy' }),
    });
    expect(group.statusCode, group.body).toBe(400);
  });
});

describe.each(engines)('build and deploy pipelines on a remote runner ($name)', (engine) => {
  const t = useTestApp(engine, { GANTRY_WEB_HOST: WEB_HOST, GANTRY_USE_REMOTE_RUNNER: 'true', GANTRY_RUNNER_TIMEOUT_SECONDS: '5' });
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gantry-runner-'));
  const keyFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'gantry-runner-key-')), 'runner.pem');
  let agent: RunnerAgent | undefined;
  let admin: Caller;

  beforeAll(async () => {
    await t().app.listen({ port: 0, host: '127.0.0.1' });
    const address = t().app.server.address();
    if (!address || typeof address === 'string') throw new Error('no address');
    admin = await signedInUser(t(), { admin: true });
    const runner = (await admin.post('/api/runners', { name: 'pipelines', tag: 'linux', max_parallel_tasks: 2 })).json<{ token: string; private_key: string }>();
    fs.writeFileSync(keyFile, runner.private_key);
    const systemPath = process.env.PATH ?? '/usr/bin:/bin';
    agent = new RunnerAgent({
      server: httpRunnerServer(`http://127.0.0.1:${address.port}`, runner.token),
      privateKey: runner.private_key,
      workDir,
      pollMs: 100,
      systemPath,
      sandbox: runnerTaskSandbox({ taskSandbox: 'bwrap', workDir, privateKeyFile: keyFile, systemPath }),
      log: () => undefined,
    });
    agent.start();
  });
  afterAll(async () => {
    await agent?.stop();
    fs.rmSync(workDir, { recursive: true, force: true });
    fs.rmSync(path.dirname(keyFile), { recursive: true, force: true });
  });

  it('gives a runner the same values: they travel in the sealed job', async () => {
    const ctx = t();
    const r = await resources(ctx, admin);
    const build = await template(ctx, admin, r, { name: 'build', app: 'bash', playbook: 'build.sh', type: 'build', start_version: '4.0.0', runner_tag: 'linux' });
    const deploy = await template(ctx, admin, r, { name: 'deploy', app: 'bash', playbook: 'deploy.sh', type: 'deploy', build_template_id: build, runner_tag: 'linux' });
    const b = await run(ctx, admin, r.p, { template_id: build });
    expect(b.log).toContain('bash build: build 4.0.0 incoming=[]');
    expect(b.log).toContain(`gantry: build 4.0.0 ${admin.username} ${WEB_HOST}/project/${r.p}/history?t=${b.id}`);
    const d = await run(ctx, admin, r.p, { template_id: deploy, build_task_id: b.id });
    expect(d.log).toContain('bash deploy: deploy 4.0.0 target=[]');
    expect(d.log).toContain(`gantry: deploy 4.0.0 user=[${admin.username}]`);
  }, 90_000);
});
