import { describe, expect, it } from 'vitest';
import { gitRepo } from '../../test/git-fixture.js';
import { createProject, engines, signedInUser, useTestApp } from '../../test/harness.js';
import { runTask, setupTemplate, taskLog, waitForTask } from '../../test/tasks.js';

describe.each(engines)('tasks: bash and python ($name)', (engine) => {
  const t = useTestApp(engine);

  it('runs a bash script from the repository with variables, stores and streams its log', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const p = await createProject(admin);
    const repo = gitRepo({ 'hello.sh': 'echo "hello $GREETING from $(basename $PWD)"\necho "region=$region"\necho "args: $*"\necho "secret=$API_TOKEN"\n' });
    const s = await setupTemplate(
      admin,
      p,
      repo,
      { app: 'bash', playbook: 'hello.sh', arguments: '["one", "two"]', allow_override_args_in_task: true },
      { json: '{"region": "eu-west"}', env: '{"GREETING": "hi"}', secrets: [{ name: 'API_TOKEN', secret: 'tok-canary-123', type: 'env' }] },
    );
    const seen: string[] = [];
    const off = t().app.services.bus.onLines((b) => {
      for (const l of b.lines) seen.push(l.output);
    });
    const id = await runTask(admin, p, { template_id: s.templateId, message: 'first', arguments: '["three"]' });
    const task = await waitForTask(admin, p, id);
    off();
    expect(task.status).toBe('success');
    expect(task.commit_hash).toMatch(/^[0-9a-f]{40}$/);
    expect(task.commit_message).toBe('initial');
    const log = await taskLog(admin, p, id);
    expect(log).toContain('hello hi from repository');
    expect(log).toContain('region=eu-west');
    expect(log).toContain('args: one two three');
    expect(log).toContain('secret=**********');
    expect(log.join('\n')).not.toContain('tok-canary-123');
    expect(seen).toContain('hello hi from repository');
    expect(seen.join('\n')).not.toContain('tok-canary-123');
    const raw = await admin.get(`/api/project/${p}/tasks/${id}/raw_output`);
    expect(raw.headers['content-type']).toMatch(/text\/plain/);
    expect(raw.body).toContain('hello hi from repository\n');
  });

  it('gives extra variables to scripts as environment variables, and refuses names that steer the process', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const p = await createProject(admin);
    const repo = gitRepo({ 'env.sh': 'echo "ok=$OK_VAR path=$PATH preload=$LD_PRELOAD bashenv=$BASH_ENV id=$GANTRY_TASK_ID"\n' });
    const s = await setupTemplate(admin, p, repo, { app: 'bash', playbook: 'env.sh', allow_extra_vars_in_task: true });
    // Such names used to be dropped silently; they are refused now, naming the variable, and nothing is queued.
    for (const name of ['PATH', 'LD_PRELOAD', 'BASH_ENV', 'GANTRY_TASK_ID']) {
      const res = await admin.post(`/api/project/${p}/tasks`, { template_id: s.templateId, environment: JSON.stringify({ OK_VAR: 'yes', [name]: '/tmp/evil' }) });
      expect([res.statusCode, res.json()]).toEqual([400, { error: `Variable ${name} is reserved`, code: 'variable_reserved', field: 'environment', variable: name }]);
    }
    expect((await admin.get(`/api/project/${p}/tasks`)).json()).toEqual([]);
    const id = await runTask(admin, p, { template_id: s.templateId, environment: JSON.stringify({ OK_VAR: 'yes' }) });
    const task = await waitForTask(admin, p, id);
    expect(task.status).toBe('success');
    const line = (await taskLog(admin, p, id)).find((l) => l.startsWith('ok='))!;
    expect(line).toContain('ok=yes');
    expect(line).toContain('preload= bashenv= ');
    expect(line).toContain(`id=${id}`);
  });

  it('fails the task when the script exits non-zero, and runs python', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const p = await createProject(admin);
    const repo = gitRepo({ 'fail.sh': 'echo before\nexit 3\n', 'main.py': 'import os, sys\nprint("py", sys.argv[1:], os.environ["size"])\n' });
    const bash = await setupTemplate(admin, p, repo, { app: 'bash', playbook: 'fail.sh' });
    const failed = await waitForTask(admin, p, await runTask(admin, p, { template_id: bash.templateId }));
    expect(failed.status).toBe('error');
    expect((await taskLog(admin, p, failed.id as number)).join('\n')).toMatch(/before[\s\S]*exited with 3/);

    const py = await setupTemplate(admin, p, repo, {
      app: 'python',
      playbook: 'main.py',
      arguments: '["--flag"]',
      survey_vars: [{ name: 'size', title: 'Size', type: 'int', required: true }],
    });
    const missing = await admin.post(`/api/project/${p}/tasks`, { template_id: py.templateId });
    expect(missing.json()).toEqual({ error: 'Size is required', code: 'survey_value_required', title: 'Size', field: 'environment.size' });
    const notInt = await admin.post(`/api/project/${p}/tasks`, { template_id: py.templateId, environment: '{"size": "big"}' });
    expect(notInt.json()).toEqual({ error: 'Size must be integer', code: 'survey_value_integer', title: 'Size', field: 'environment.size' });
    const ok = await waitForTask(admin, p, await runTask(admin, p, { template_id: py.templateId, environment: '{"size": "42"}' }));
    expect(ok.status).toBe('success');
    expect(await taskLog(admin, p, ok.id as number)).toContain("py ['--flag'] 42");
  });

  it('stops a running task with SIGTERM to its process group, and force-stops one that ignores it', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const p = await createProject(admin);
    const repo = gitRepo({
      'long.sh': 'echo started\nsleep 30 &\nwait\necho never\n',
      'stubborn.sh': 'trap "echo got TERM" TERM\necho started\nwhile true; do sleep 0.1; done\n',
    });
    const long = await setupTemplate(admin, p, repo, { app: 'bash', playbook: 'long.sh' });
    const id = await runTask(admin, p, { template_id: long.templateId });
    await waitForLine(admin, p, id, 'started');
    expect((await admin.post(`/api/project/${p}/tasks/${id}/stop`, { force: false })).statusCode).toBe(204);
    expect((await waitForTask(admin, p, id)).status).toBe('stopped');
    expect(await taskLog(admin, p, id)).not.toContain('never');

    const stubborn = await setupTemplate(admin, p, repo, { app: 'bash', playbook: 'stubborn.sh' });
    const sid = await runTask(admin, p, { template_id: stubborn.templateId });
    await waitForLine(admin, p, sid, 'started');
    await admin.post(`/api/project/${p}/tasks/${sid}/stop`, { force: false });
    await waitForLine(admin, p, sid, 'got TERM');
    expect((await admin.get(`/api/project/${p}/tasks/${sid}`)).json().status).toBe('stopping');
    await admin.post(`/api/project/${p}/tasks/${sid}/stop`, { force: true });
    expect((await waitForTask(admin, p, sid)).status).toBe('stopped');
  });
});

async function waitForLine(c: Parameters<typeof taskLog>[0], p: number, id: number, line: string): Promise<void> {
  const until = Date.now() + 30_000;
  while (!(await taskLog(c, p, id)).includes(line)) {
    if (Date.now() > until) throw new Error(`no "${line}" in task ${id}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
