import fs from 'node:fs';
import path from 'node:path';
import { taskCreateSchema } from '@gantry/contracts';
import { beforeAll, describe, expect, it } from 'vitest';
import { gitRepo } from '../test/git-fixture.js';
import { createProject, engines, signedInUser, useTestApp, type Caller } from '../test/harness.js';
import { runTask, setupTemplate, taskLog, waitForTask, type TemplateSetup } from '../test/tasks.js';

/** What a later workflow node is given: one value is Jinja that must stay text. */
const INPUTS = { build: { version: '1.2.3', evil: "{{ lookup('pipe','id') }}", list: [1, 'two', { three: 3 }] } };

/** The documented, module-free way a playbook leaves its output (README). */
const PLAYBOOK = `
- hosts: all
  gather_facts: false
  tasks:
    - name: show what earlier nodes left
      ansible.builtin.debug:
        msg: "version={{ gantry_outputs.build.version }} evil={{ gantry_outputs.build.evil }}"
    - name: leave this task's output for the next workflow nodes
      ansible.builtin.copy:
        content: "{{ {'deployed': gantry_outputs.build.version, 'echo': gantry_outputs.build.evil, 'host': inventory_hostname} | to_json }}"
        dest: "{{ lookup('ansible.builtin.env', 'GANTRY_OUTPUT') }}"
        mode: "0600"
      delegate_to: localhost
      run_once: true
`;

describe.each(engines)('task outputs and inputs ($name)', (engine) => {
  const t = useTestApp(engine);
  let admin: Caller;
  let p: number;
  let s: TemplateSetup;
  /** A JSON object in the data folder: a link to it must never bring it into a task's output. */
  let dataBait: string;

  const script = (name: string) => async (): Promise<number> => {
    const res = await admin.post(`/api/project/${p}/templates`, {
      name,
      app: 'bash',
      playbook: name,
      repository_id: s.repositoryId,
      environment_id: s.environmentId,
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().id;
  };
  const run = async (templateId: number) => {
    const id = await runTask(admin, p, { template_id: templateId });
    const task = await waitForTask(admin, p, id);
    const log = (await taskLog(admin, p, id)).join('\n');
    const result = await admin.get(`/api/project/${p}/tasks/${id}/result`);
    expect(result.statusCode, result.body).toBe(200);
    return { id, status: task.status, log, result: result.json<{ output: unknown; inputs: unknown }>() };
  };

  beforeAll(async () => {
    admin = await signedInUser(t(), { admin: true });
    p = await createProject(admin);
    dataBait = path.join(t().config.dataDir, 'bait.json');
    fs.writeFileSync(dataBait, '{"leaked": "from the data folder"}', { mode: 0o644 });
    const repo = gitRepo({
      'write.sh': `printf '{"version": "1.2.3", "ok": true, "n": [1, 2]}' > "$GANTRY_OUTPUT"\necho wrote\n`,
      'large.sh': `{ printf '{"a": "'; head -c 1048600 /dev/zero | tr '\\0' x; printf '"}'; } > "$GANTRY_OUTPUT"\n`,
      'array.sh': `echo '[1, 2, 3]' > "$GANTRY_OUTPUT"\n`,
      'garbage.sh': `echo 'version=1.2.3' > "$GANTRY_OUTPUT"\n`,
      'link-passwd.sh': `ln -s /etc/passwd "$GANTRY_OUTPUT"\n`,
      'link-data.sh': `ln -s ${JSON.stringify(dataBait)} "$GANTRY_OUTPUT"\n`,
      'fail.sh': `printf '{"partial": "yes"}' > "$GANTRY_OUTPUT"\nexit 3\n`,
      'fail-large.sh': `head -c 1048600 /dev/zero > "$GANTRY_OUTPUT"\nexit 3\n`,
      'none.sh': 'echo nothing left\n',
      'leak.sh': `printf '{"token": "%s", "list": ["x-%s-y"], "%s": 1, "kept": "plain"}' "$API_TOKEN" "$API_TOKEN" "$API_TOKEN" > "$GANTRY_OUTPUT"\n`,
      'inputs.sh':
        'echo "env=$GANTRY_OUTPUTS"\necho "file=$(cat "$GANTRY_OUTPUTS_FILE")"\nprintf \'{"seen": %s}\' "$GANTRY_OUTPUTS" > "$GANTRY_OUTPUT"\n',
      'big-inputs.sh': 'echo "env-set=${GANTRY_OUTPUTS+yes}"\necho "file-bytes=$(wc -c < "$GANTRY_OUTPUTS_FILE")"\n',
      'site.yml': PLAYBOOK,
      // Terraform: the JSON text in a string variable, decoded by jsondecode (its text is never parsed as HCL).
      'infra/main.tf':
        'variable "gantry_outputs" {\n  type    = string\n  default = "{}"\n}\nlocals {\n  inputs = jsondecode(var.gantry_outputs)\n}\noutput "got" {\n  value = "${local.inputs.build.version} ${local.inputs.build.hcl}"\n}\n',
    });
    s = await setupTemplate(admin, p, repo, { app: 'bash', playbook: 'write.sh' });
  });

  it('stores the object a bash task wrote to GANTRY_OUTPUT, readable with the task', async () => {
    const r = await run(s.templateId);
    expect(r.status, r.log).toBe('success');
    expect(r.result).toEqual({ output: { version: '1.2.3', ok: true, n: [1, 2] }, inputs: null });
    expect(r.log).toContain('Output: 3 key(s) kept from the output file');
    // The task's answer carries nothing new; the workspace is gone.
    const task = (await admin.get(`/api/project/${p}/tasks/${r.id}`)).json();
    expect(task).not.toHaveProperty('output');
    expect(fs.readdirSync(t().config.taskDir)).toEqual([]);
  }, 60_000);

  it('masks the run’s secrets in the output it keeps, as its log does', async () => {
    const group = await admin.post(`/api/project/${p}/environment`, {
      name: 'with a secret',
      json: '{}',
      env: '{}',
      secrets: [{ name: 'API_TOKEN', secret: 'tok-canary-4711', type: 'env' }],
    });
    expect(group.statusCode, group.body).toBe(201);
    const tpl = await admin.post(`/api/project/${p}/templates`, {
      name: 'leak.sh',
      app: 'bash',
      playbook: 'leak.sh',
      repository_id: s.repositoryId,
      environment_id: group.json().id,
    });
    const r = await run(tpl.json().id);
    expect(r.status, r.log).toBe('success');
    expect(JSON.stringify(r.result)).not.toContain('tok-canary-4711');
    expect(r.result.output).toEqual({ token: '**********', list: ['x-**********-y'], '**********': 1, kept: 'plain' });
  }, 60_000);

  it('keeps no output for a task that left none', async () => {
    const r = await run(await script('none.sh')());
    expect(r.status, r.log).toBe('success');
    expect(r.result).toEqual({ output: null, inputs: null });
  }, 60_000);

  it('fails a task whose output file is larger than 1 MiB, saying so', async () => {
    const r = await run(await script('large.sh')());
    expect(r.status, r.log).toBe('error');
    expect(r.log).toContain('The output file is larger than 1 MiB');
    expect(r.result.output).toBeNull();
  }, 60_000);

  it('fails a task whose output is not a JSON object', async () => {
    for (const name of ['array.sh', 'garbage.sh']) {
      const r = await run(await script(name)());
      expect(r.status, r.log).toBe('error');
      expect(r.log).toContain('The output file is not a JSON object');
      expect(r.result.output).toBeNull();
    }
  }, 60_000);

  it('never follows a link the task made (to /etc/passwd, to the data folder), though the server runs as root', async () => {
    for (const name of ['link-passwd.sh', 'link-data.sh']) {
      const r = await run(await script(name)());
      expect(r.status, r.log).toBe('error');
      expect(r.log).toContain('The output file was not read: it is a symbolic link');
      expect(r.result.output).toBeNull();
      expect(r.log).not.toContain('root:x:0:0');
      expect(r.log).not.toContain('from the data folder');
    }
    // The target is untouched.
    expect(fs.readFileSync(dataBait, 'utf8')).toBe('{"leaked": "from the data folder"}');
  }, 60_000);

  it('keeps the output of a failed task, and its own error when the output is bad too', async () => {
    const r = await run(await script('fail.sh')());
    expect(r.status, r.log).toBe('error');
    expect(r.log).toContain('exited with 3');
    expect(r.result.output).toEqual({ partial: 'yes' });
    const big = await run(await script('fail-large.sh')());
    expect(big.status, big.log).toBe('error');
    expect(big.log).toContain('exited with 3');
    expect(big.log).toContain('The output file is larger than 1 MiB');
    expect(big.result.output).toBeNull();
  }, 60_000);

  it('gives a bash task its inputs as GANTRY_OUTPUTS and in the file GANTRY_OUTPUTS_FILE, as data', async () => {
    const templateId = await script('inputs.sh')();
    const task = await t().app.services.tasks.create(
      { id: admin.id, admin: true },
      p,
      taskCreateSchema.parse({ template_id: templateId }),
      { inputs: INPUTS },
    );
    const done = await waitForTask(admin, p, task.id);
    const log = (await taskLog(admin, p, task.id)).join('\n');
    expect(done.status, log).toBe('success');
    expect(log).toContain(`env=${JSON.stringify(INPUTS)}`);
    expect(log).toContain(`file=${JSON.stringify(INPUTS)}`);
    expect(log).not.toMatch(/uid=\d+/);
    const result = (await admin.get(`/api/project/${p}/tasks/${task.id}/result`)).json();
    expect(result).toEqual({ output: { seen: INPUTS }, inputs: INPUTS });
  }, 60_000);

  it('gives a script inputs too large for an environment variable in the file only, and says so', async () => {
    const templateId = await script('big-inputs.sh')();
    const inputs = { a: { text: 'x'.repeat(100 * 1024) }, b: { text: 'y'.repeat(100 * 1024) } };
    const task = await t().app.services.tasks.create(
      { id: admin.id, admin: true },
      p,
      taskCreateSchema.parse({ template_id: templateId }),
      { inputs },
    );
    const done = await waitForTask(admin, p, task.id);
    const log = (await taskLog(admin, p, task.id)).join('\n');
    expect(done.status, log).toBe('success');
    expect(log).toContain('env-set=\n');
    expect(log).toContain(`file-bytes=${JSON.stringify(inputs).length}`);
    expect(log).toContain(
      'The outputs of earlier nodes are too large for GANTRY_OUTPUTS: read them from the file named by GANTRY_OUTPUTS_FILE',
    );
  }, 60_000);

  it('gives a terraform task its inputs as TF_VAR_gantry_outputs (JSON text)', async () => {
    const tpl = await admin.post(`/api/project/${p}/templates`, {
      name: 'tf',
      app: 'terraform',
      playbook: 'infra',
      repository_id: s.repositoryId,
      environment_id: s.environmentId,
      task_params: { auto_approve: true },
    });
    expect(tpl.statusCode, tpl.body).toBe(201);
    const inputs = { build: { version: '1.2.3', hcl: '${path.module}' } };
    const task = await t().app.services.tasks.create(
      { id: admin.id, admin: true },
      p,
      taskCreateSchema.parse({ template_id: tpl.json().id }),
      { inputs },
    );
    const done = await waitForTask(admin, p, task.id, undefined, 90_000);
    const log = (await taskLog(admin, p, task.id)).join('\n');
    expect(done.status, log).toBe('success');
    expect(log).toContain('got = "1.2.3 ${path.module}"');
  }, 120_000);

  it('gives an ansible task its inputs as the unsafe extra variable gantry_outputs; the playbook leaves its output module-free', async () => {
    const key = (await admin.post(`/api/project/${p}/keys`, { name: 'none', type: 'none' })).json().id;
    const inv = (
      await admin.post(`/api/project/${p}/inventory`, {
        name: 'local',
        type: 'static',
        inventory: 'web ansible_connection=local ansible_python_interpreter=/usr/bin/python3',
        ssh_key_id: key,
      })
    ).json().id;
    const tpl = await admin.post(`/api/project/${p}/templates`, {
      name: 'play',
      app: 'ansible',
      playbook: 'site.yml',
      repository_id: s.repositoryId,
      environment_id: s.environmentId,
      inventory_id: inv,
    });
    expect(tpl.statusCode, tpl.body).toBe(201);
    const task = await t().app.services.tasks.create(
      { id: admin.id, admin: true },
      p,
      taskCreateSchema.parse({ template_id: tpl.json().id }),
      { inputs: INPUTS },
    );
    const done = await waitForTask(admin, p, task.id, undefined, 90_000);
    const log = (await taskLog(admin, p, task.id)).join('\n');
    expect(done.status, log).toBe('success');
    // Jinja in an input is printed, never run.
    expect(log).toContain("version=1.2.3 evil={{ lookup('pipe','id') }}");
    expect(log).not.toMatch(/uid=\d+/);
    const result = (await admin.get(`/api/project/${p}/tasks/${task.id}/result`)).json();
    expect(result).toEqual({
      output: { deployed: '1.2.3', echo: "{{ lookup('pipe','id') }}", host: 'web' },
      inputs: INPUTS,
    });
  }, 120_000);

  it('answers 404 for a task of another project, and to non-members', async () => {
    const other = await createProject(admin);
    const id = await runTask(admin, p, { template_id: s.templateId });
    await waitForTask(admin, p, id);
    expect((await admin.get(`/api/project/${other}/tasks/${id}/result`)).statusCode).toBe(404);
    const stranger = await signedInUser(t());
    // A non-member does not learn the project exists.
    expect((await stranger.get(`/api/project/${p}/tasks/${id}/result`)).statusCode).toBe(404);
  }, 60_000);
});
