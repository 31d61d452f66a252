import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { gitRepo } from '../test/git-fixture.js';
import {
  addMember,
  createProject,
  engines,
  signedInUser,
  useTestApp,
  type Caller,
  type TestContext,
} from '../test/harness.js';
import { runTask, setupTemplate, taskLog, waitForTask } from '../test/tasks.js';
import { deliver, tasksOf } from '../test/webhooks.js';

const PLAYBOOK = `
- hosts: all
  gather_facts: false
  tasks:
    - ansible.builtin.debug:
        msg: "greeting={{ greeting | default('none') }}"
    - ansible.builtin.debug:
        msg: "computed={{ computed | default('none') }}"
`;

/** A command that shows in the log only if it ran, and leaves `marker` behind where it can. */
const injection = (marker: string) => `{{ lookup('pipe', 'echo PWNED-$((6*7)); touch ${marker}') }}`;

function markerPath(): string {
  return path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'gantry-untrusted-')), 'ran');
}

/** An Ansible template on localhost (`-c local`) whose variable group renders a Jinja value of its own. */
async function ansibleTemplate(c: Caller, p: number, template: Record<string, unknown> = {}) {
  const key = (await c.post(`/api/project/${p}/keys`, { name: 'none', type: 'none' })).json().id;
  const inv = (
    await c.post(`/api/project/${p}/inventory`, {
      name: 'local',
      type: 'static',
      inventory: 'localhost ansible_connection=local ansible_python_interpreter=/usr/bin/python3',
      ssh_key_id: key,
    })
  ).json().id;
  return setupTemplate(
    c,
    p,
    gitRepo({ 'site.yml': PLAYBOOK }),
    {
      app: 'ansible',
      playbook: 'site.yml',
      inventory_id: inv,
      survey_vars: [{ name: 'greeting', title: 'Greeting' }],
      ...template,
    },
    { json: '{"computed": "{{ 6 * 7 }}"}' },
  );
}

async function member(ctx: TestContext, p: number, role: 'task_runner' | 'manager'): Promise<Caller> {
  const u = await signedInUser(ctx);
  await addMember(ctx, p, u.id, role);
  return u;
}

/** A refused task request: 400 with `error` (and, for some refusals, `code` and `field`). */
const bad = async (c: Caller, p: number, body: Record<string, unknown>, error: string | Record<string, unknown>) => {
  const res = await c.post(`/api/project/${p}/tasks`, body);
  expect([res.statusCode, res.json()], JSON.stringify(body)).toEqual([
    400,
    typeof error === 'string' ? { error } : error,
  ]);
};
/** The refusal of a reserved variable name in a task request's `field`. */
const reservedIn = (name: string, field = 'environment') => ({
  error: `Variable ${name} is reserved`,
  code: 'variable_reserved',
  field,
  variable: name,
});

describe.each(engines)('untrusted task input ($name)', (engine) => {
  const t = useTestApp(engine);

  it("prints Jinja from a task runner's survey answer literally: the command in it never runs", async () => {
    const admin = await signedInUser(t(), { admin: true });
    const p = await createProject(admin);
    const runner = await member(t(), p, 'task_runner');
    const s = await ansibleTemplate(admin, p);
    const marker = markerPath();
    const id = await runTask(runner, p, {
      template_id: s.templateId,
      environment: JSON.stringify({ greeting: injection(marker) }),
    });
    const task = await waitForTask(runner, p, id);
    const log = (await taskLog(runner, p, id)).join('\n');
    expect(task.status, log).toBe('success');
    expect(log).toContain(`greeting=${injection(marker)}`);
    expect(log).not.toContain('PWNED-42');
    expect(fs.existsSync(marker)).toBe(false);
    // The variable group's value is the manager's: it is still rendered.
    expect(log).toContain('computed=42');
  });

  it('prints Jinja from an integration value literally: the command in it never runs', async () => {
    const ctx = t();
    const admin = await signedInUser(ctx, { admin: true });
    const p = await createProject(admin);
    const s = await ansibleTemplate(admin, p);
    const base = `/api/project/${p}/integrations`;
    const hook = (await admin.post(base, { name: 'hook', template_id: s.templateId })).json().id;
    const value = {
      name: 'greeting',
      value_source: 'body',
      body_data_type: 'json',
      key: 'greeting',
      variable_type: 'task',
      variable: 'greeting',
    };
    expect((await admin.post(`${base}/${hook}/values`, value)).statusCode).toBe(201);
    const alias = (await admin.post(`${base}/${hook}/aliases`)).json().alias;
    const marker = markerPath();

    expect(
      (
        await deliver(ctx, alias, JSON.stringify({ greeting: injection(marker) }), {
          'content-type': 'application/json',
        })
      ).statusCode,
    ).toBe(204);
    const [started] = await tasksOf(admin, p, hook);
    const task = await waitForTask(admin, p, started!.id);
    const log = (await taskLog(admin, p, started!.id)).join('\n');
    expect(task.status, log).toBe('success');
    expect(log).toContain(`greeting=${injection(marker)}`);
    expect(log).not.toContain('PWNED-42');
    expect(fs.existsSync(marker)).toBe(false);
  });

  it("refuses Ansible's own variables, and variables a survey does not ask for unless the template allows them", async () => {
    const admin = await signedInUser(t(), { admin: true });
    const p = await createProject(admin);
    const runner = await member(t(), p, 'task_runner');
    const closed = await ansibleTemplate(admin, p);
    const open = await ansibleTemplate(admin, p, { name: 'open', allow_extra_vars_in_task: true });
    for (const name of ['ansible_python_interpreter', 'ansible_ssh_common_args', 'hostvars']) {
      for (const field of ['environment', 'secret']) {
        await bad(
          runner,
          p,
          { template_id: open.templateId, [field]: JSON.stringify({ [name]: "/bin/sh -c 'id'; /usr/bin/python3" }) },
          reservedIn(name, field),
        );
      }
    }
    await bad(
      runner,
      p,
      { template_id: closed.templateId, environment: '{"colour": "red"}' },
      { error: 'Variable colour is not a survey variable of this template', code: 'variable_not_in_survey', field: 'environment', variable: 'colour' },
    );
    const id = await runTask(runner, p, {
      template_id: open.templateId,
      environment: '{"colour": "red", "greeting": "hi"}',
    });
    const log = (await taskLog(runner, p, (await waitForTask(runner, p, id)).id as number)).join('\n');
    expect(log).toContain('greeting=hi');
    expect((await admin.get(`/api/project/${p}/tasks`)).json()).toHaveLength(1);
  });

  it('refuses limits that are not plain host patterns, and passes a good one as one argument', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const p = await createProject(admin);
    const runner = await member(t(), p, 'task_runner');
    const s = await ansibleTemplate(admin, p, { task_params: { allow_override_limit: true } });
    for (const limit of [['localhost,@/etc/hostname'], ['@x'], ['-e'], ['a,b']]) {
      await bad(
        runner,
        p,
        { template_id: s.templateId, params: { limit } },
        {
          error: `Limit item ${JSON.stringify(limit[0])} is not a plain host pattern or tag`,
          code: 'host_pattern_invalid',
          label_key: 'limit',
          item: expect.any(String),
          field: 'params.limit',
        },
      );
    }
    const id = await runTask(runner, p, { template_id: s.templateId, params: { limit: ['local*'] } });
    const task = await waitForTask(runner, p, id);
    expect(task.status, (await taskLog(runner, p, id)).join('\n')).toBe('success');
  });

  it('refuses process-steering environment variables from a task, an integration and a variable group', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const p = await createProject(admin);
    const repo = gitRepo({ 'env.sh': 'echo "preload=$LD_PRELOAD"\n' });
    const s = await setupTemplate(admin, p, repo, { app: 'bash', playbook: 'env.sh', allow_extra_vars_in_task: true });
    const base = `/api/project/${p}/integrations`;
    const hook = (await admin.post(base, { name: 'hook', template_id: s.templateId })).json().id;
    for (const name of ['SHELLOPTS', 'PS4', 'GIT_SSH_COMMAND', 'LD_PRELOAD']) {
      const error = { error: `Variable ${name} is reserved`, code: 'variable_reserved', variable: name };
      await bad(
        admin,
        p,
        { template_id: s.templateId, environment: JSON.stringify({ [name]: 'x' }) },
        reservedIn(name),
      );
      for (const variable_type of ['environment', 'task']) {
        const value = { name: 'v', value_source: 'header', key: 'X-A', variable_type, variable: name };
        const res = await admin.post(`${base}/${hook}/values`, value);
        expect([res.statusCode, res.json()]).toEqual([400, { ...error, field: 'variable' }]);
      }
      for (const group of [
        { env: JSON.stringify({ [name]: 'x' }) },
        { secrets: [{ name, type: 'env', secret: 'x' }] },
      ]) {
        const res = await admin.post(`/api/project/${p}/environment`, { name: `g-${name}`, ...group });
        expect([res.statusCode, res.json()]).toEqual([400, { ...error, field: Object.keys(group)[0] }]);
      }
    }
    expect((await admin.get(`${base}/${hook}/values`)).json()).toEqual([]);
    expect((await admin.get(`/api/project/${p}/tasks`)).json()).toEqual([]);
  });

  it("refuses proxies, endpoints, CA bundles and tool options from task input, and any name of the group's environment; the group's own reach the run", async () => {
    const ctx = t();
    const admin = await signedInUser(ctx, { admin: true });
    const p = await createProject(admin);
    const runner = await member(ctx, p, 'task_runner');
    const script =
      'echo "proxy=$HTTPS_PROXY target=$DEPLOY_TARGET token=${API_TOKEN:+set} tflog=$TF_LOG colour=$colour"\n';
    const groupEnv = { HTTPS_PROXY: 'http://proxy.corp:3128', DEPLOY_TARGET: 'prod', TF_LOG: 'INFO' };
    const s = await setupTemplate(
      admin,
      p,
      gitRepo({ 'env.sh': script }),
      {
        app: 'bash',
        playbook: 'env.sh',
        allow_extra_vars_in_task: true,
        survey_vars: [{ name: 'DEPLOY_TARGET', title: 'Target' }],
      },
      { env: JSON.stringify(groupEnv), secrets: [{ name: 'API_TOKEN', type: 'env', secret: 'tok-123' }] },
    );
    for (const name of [
      'HTTPS_PROXY',
      'https_proxy',
      'VAULT_ADDR',
      'TF_CLI_ARGS',
      'TF_LOG',
      'GLIBC_TUNABLES',
      'NPM_CONFIG_REGISTRY',
    ]) {
      for (const field of ['environment', 'secret'])
        await bad(
          runner,
          p,
          { template_id: s.templateId, [field]: JSON.stringify({ [name]: 'http://evil.example:8080' }) },
          reservedIn(name, field),
        );
    }
    // A survey answer (or any task variable) named like one of the group's environment variables,
    // secret ones included, would replace it for scripts: refused, naming it.
    const replaces = (name: string, field: string) => ({
      error: `Variable ${name} would replace an environment variable of the variable group`,
      code: 'variable_replaces_group',
      field,
      variable: name,
    });
    await bad(
      runner,
      p,
      { template_id: s.templateId, environment: '{"DEPLOY_TARGET": "attacker"}' },
      replaces('DEPLOY_TARGET', 'environment'),
    );
    await bad(
      runner,
      p,
      { template_id: s.templateId, secret: '{"API_TOKEN": "mine"}' },
      replaces('API_TOKEN', 'secret'),
    );

    // An integration may not name them either: refused when configured, or when a delivery would start the task.
    const base = `/api/project/${p}/integrations`;
    const hook = (await admin.post(base, { name: 'hook', template_id: s.templateId })).json().id;
    for (const variable_type of ['environment', 'task']) {
      const value = { name: 'v', value_source: 'header', key: 'X-Proxy', variable_type, variable: 'HTTPS_PROXY' };
      const res = await admin.post(`${base}/${hook}/values`, value);
      expect([res.statusCode, res.json()]).toEqual([400, { error: 'Variable HTTPS_PROXY is reserved', code: 'variable_reserved', variable: 'HTTPS_PROXY', field: 'variable' }]);
    }
    const value = {
      name: 'v',
      value_source: 'header',
      key: 'X-Target',
      variable_type: 'environment',
      variable: 'DEPLOY_TARGET',
    };
    expect((await admin.post(`${base}/${hook}/values`, value)).statusCode).toBe(201);
    const alias = (await admin.post(`${base}/${hook}/aliases`)).json().alias;
    expect(
      (await deliver(ctx, alias, '{}', { 'content-type': 'application/json', 'x-target': 'attacker' })).statusCode,
    ).toBe(204);
    expect((await admin.get(`/api/project/${p}/tasks`)).json()).toEqual([]);
    expect((await admin.get(`/api/project/${p}/events/last`)).body).toContain(
      'could not start a task: Variable DEPLOY_TARGET would replace an environment variable of the variable group',
    );

    // The group is as the manager saved it, and its values (TF_LOG, the proxy) reach the run.
    expect(JSON.parse((await admin.get(`/api/project/${p}/environment/${s.environmentId}`)).json().env)).toEqual(
      groupEnv,
    );
    const id = await runTask(runner, p, { template_id: s.templateId, environment: '{"colour": "red"}' });
    const task = await waitForTask(runner, p, id);
    const log = (await taskLog(runner, p, id)).join('\n');
    expect(task.status, log).toBe('success');
    expect(log).toContain('proxy=http://proxy.corp:3128 target=prod token=set tflog=INFO colour=red');
  });

  it('fails the run, before any process starts, when a variable group holds a refused environment variable', async () => {
    const ctx = t();
    const admin = await signedInUser(ctx, { admin: true });
    const p = await createProject(admin);
    const repo = gitRepo({ 'env.sh': 'echo "script ran"\n' });
    const s = await setupTemplate(admin, p, repo, { app: 'bash', playbook: 'env.sh' });
    // A row saved before the rule existed (or restored from elsewhere): the engine checks again.
    await ctx.db.db
      .updateTable('environment')
      .set({ env: '{"OK": "1", "LD_PRELOAD": "/tmp/evil.so"}' })
      .where('id', '=', s.environmentId)
      .execute();
    const id = await runTask(admin, p, { template_id: s.templateId });
    const task = await waitForTask(admin, p, id);
    const log = (await taskLog(admin, p, id)).join('\n');
    expect(task.status).toBe('error');
    expect(log).toContain('Environment variable LD_PRELOAD of the variable group is not allowed');
    expect(log).not.toContain('script ran');
  });

  it('refuses branches git would read as something else', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const p = await createProject(admin);
    const s = await ansibleTemplate(admin, p, { allow_override_branch_in_task: true });
    for (const branch of ['a..b', '../x', '@{-1}', 'main;id'])
      await bad(admin, p, { template_id: s.templateId, git_branch: branch }, { error: 'Incorrect branch', code: 'incorrect_branch', field: 'git_branch' });
    expect(
      (
        await admin.post(`/api/project/${p}/templates`, {
          name: 'b',
          app: 'bash',
          playbook: 'a.sh',
          repository_id: s.repositoryId,
          environment_id: s.environmentId,
          git_branch: 'a..b',
        })
      ).json(),
    ).toEqual({
      error: 'Incorrect branch',
      code: 'incorrect_branch',
      field: 'git_branch',
    });
  });

  it("passes a task runner's debug flags only when the template allows debug", async () => {
    const admin = await signedInUser(t(), { admin: true });
    const p = await createProject(admin);
    const runner = await member(t(), p, 'task_runner');
    const params = { debug: true, debug_level: 2 };
    const quiet = await ansibleTemplate(admin, p);
    const id = await runTask(runner, p, { template_id: quiet.templateId, params });
    const task = await waitForTask(admin, p, id);
    const log = (await taskLog(admin, p, id)).join('\n');
    expect(task.status, log).toBe('success');
    // ansible-playbook -v says which configuration it uses; without -v it does not.
    expect(log).not.toMatch(/config file/);
    expect(log).toContain('Debug was not enabled');

    const loud = await ansibleTemplate(admin, p, { name: 'loud', task_params: { allow_debug: true } });
    const id2 = await runTask(runner, p, { template_id: loud.templateId, params });
    await waitForTask(admin, p, id2);
    expect((await taskLog(admin, p, id2)).join('\n')).toMatch(/config file/);
  });

  it('lets only managers override arguments, and never with options that read files or run commands', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const p = await createProject(admin);
    const runner = await member(t(), p, 'task_runner');
    const manager = await member(t(), p, 'manager');
    const s = await ansibleTemplate(admin, p, { allow_override_args_in_task: true });
    const res = await runner.post(`/api/project/${p}/tasks`, {
      template_id: s.templateId,
      arguments: '["--forks","2"]',
    });
    expect([res.statusCode, res.json()]).toEqual([
      403,
      { error: 'Only managers may override the arguments of a task', code: 'arguments_override_forbidden' },
    ]);
    for (const args of [
      ['-e', '@/etc/hostname'],
      ['--extra-vars=@/etc/hostname'],
      ['--ssh-common-args=-o ProxyCommand=id'],
      ['-vi', '/etc/hosts'],
      ['--ssh-com=x'],
    ]) {
      await bad(
        manager,
        p,
        { template_id: s.templateId, arguments: JSON.stringify(args) },
        { error: `Argument ${args[0]} is not allowed`, code: 'argument_not_allowed', argument: args[0], field: 'arguments' },
      );
    }
    const id = await runTask(manager, p, { template_id: s.templateId, arguments: '["--forks","2"]' });
    const task = await waitForTask(manager, p, id);
    expect(task.status, (await taskLog(manager, p, id)).join('\n')).toBe('success');
  });
});
