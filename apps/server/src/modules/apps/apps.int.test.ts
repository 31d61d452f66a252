import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { APP_IDS } from '@gantry/contracts';
import { describe, expect, it } from 'vitest';
import { gitRepo } from '../../test/git-fixture.js';
import { createProject, engines, signedInUser, useTestApp, type Caller } from '../../test/harness.js';
import { runTask, setupTemplate, taskLog, waitForTask } from '../../test/tasks.js';

// A recording stand-in for an interpreter: prints its argv, one argument a line, and two variables.
const binDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gantry-apps-'));
const recorder = path.join(binDir, 'record-argv');
fs.writeFileSync(
  recorder,
  '#!/bin/sh\necho "exe=recorder"\nfor a in "$@"; do echo "arg=$a"; done\necho "env task=$GANTRY_TASK_ID size=$size"\n',
  { mode: 0o755 },
);

interface AppBody {
  id: string;
  title: string;
  path: string;
  priority: number;
  args: string[];
  active: boolean;
  builtin: boolean;
  found: boolean;
}

const listApps = async (c: Caller): Promise<AppBody[]> => (await c.get('/api/apps')).json();
const findApp = async (c: Caller, id: string) => (await listApps(c)).find((a) => a.id === id);
const argLines = (log: string[]) =>
  log.filter((l) => l.startsWith('arg=') || l.startsWith('exe=') || l.startsWith('env '));

describe.each(engines)('apps ($name)', (engine) => {
  const t = useTestApp(engine);

  it('lists the built-ins to every signed-in user, active when their executable is found', async () => {
    const user = await signedInUser(t());
    const res = await user.get('/api/apps');
    expect(res.statusCode).toBe(200);
    const apps: AppBody[] = res.json();
    expect(apps.map((a) => a.id)).toEqual([...APP_IDS]);
    expect(apps.every((a) => a.builtin)).toBe(true);
    expect(apps.find((a) => a.id === 'bash')).toMatchObject({
      title: 'Bash Script',
      path: 'bash',
      args: [],
      active: true,
      found: true,
    });
    // The test server's PATH has no pulumi: automatic mode leaves it off.
    expect(apps.find((a) => a.id === 'pulumi')).toMatchObject({ path: 'pulumi', active: false, found: false });
    const unauthenticated = await t().app.inject({ method: 'GET', url: '/api/apps' });
    expect(unauthenticated.statusCode).toBe(401);
  });

  it('lets only admins create, change, toggle and delete apps', async () => {
    const user = await signedInUser(t());
    const body = { id: 'not-mine', title: 'Nope', path: 'sh' };
    for (const res of [
      await user.post('/api/apps', body),
      await user.post('/api/apps', {}),
      await user.post('/api/apps/bash', { title: 'Mine', path: '/tmp/evil' }),
      await user.post('/api/apps/bash/active', { active: false }),
      await user.del('/api/apps/bash'),
    ]) {
      expect(res.statusCode).toBe(403);
      expect(res.json()).toEqual({ error: 'Forbidden', code: 'forbidden' });
    }
    expect(await findApp(user, 'bash')).toMatchObject({ title: 'Bash Script', path: 'bash', active: true });
    expect(await findApp(user, 'not-mine')).toBeUndefined();
  });

  it.each([
    [{ id: undefined }, 'ID is required'],
    [{ id: '  ' }, 'ID is required'],
    [{ id: 'A1' }, 'ID must be 2 to 31 lowercase letters, digits, - or _, starting with a letter'],
    [{ id: '1abc' }, 'ID must be 2 to 31 lowercase letters, digits, - or _, starting with a letter'],
    [{ id: 'x' }, 'ID must be 2 to 31 lowercase letters, digits, - or _, starting with a letter'],
    [{ title: '' }, 'Title is required'],
    [{ path: '' }, 'Path is required'],
    [{ path: '../bin/sh' }, 'Path must be an executable name or an absolute path'],
    [{ path: 'bin/sh' }, 'Path must be an executable name or an absolute path'],
    [{ path: '/usr/../bin/sh' }, 'Path must be an executable name or an absolute path'],
    [{ path: '-rf' }, 'Path must be an executable name or an absolute path'],
    [{ path: 'sh\u0000x' }, 'Path must be an executable name or an absolute path'],
    [{ priority: 'high' }, 'Priority must be an integer'],
    [{ priority: 1.5 }, 'Priority must be an integer'],
    [{ priority: 10_000_000 }, 'Priority must be between -1000000 and 1000000'],
    [{ args: '-e' }, 'Arguments must be a JSON list of strings'],
    [{ args: [1] }, 'Arguments must be a JSON list of strings'],
    [{ args: ['-e\nrm'] }, 'Arguments must not contain control characters'],
  ])('refuses to create %o with "%s"', async (over, message) => {
    const admin = await signedInUser(t(), { admin: true });
    const res = await admin.post('/api/apps', { id: 'checked', title: 'Checked', path: '/bin/sh', ...over });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: message, code: expect.any(String), field: expect.any(String) });
    expect(await findApp(admin, 'checked')).toBeUndefined();
  });

  it('creates a custom app once, sorted by priority, and refuses ids that exist', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const created = await admin.post('/api/apps', {
      id: 'first-app',
      title: 'First',
      path: '/bin/sh',
      priority: '100',
      args: ['-e'],
    });
    expect(created.statusCode).toBe(201);
    expect(created.json()).toEqual({
      id: 'first-app',
      title: 'First',
      icon: '',
      path: '/bin/sh',
      priority: 100,
      args: ['-e'],
      active: true,
      builtin: false,
      found: true,
    });
    expect((await listApps(admin))[0]!.id).toBe('first-app');
    const missing = await admin.post('/api/apps', {
      id: 'missing-exe',
      title: 'Missing',
      path: '/nonexistent/tool',
      priority: -5,
    });
    expect(missing.json()).toMatchObject({ active: false, found: false });
    expect((await listApps(admin)).at(-1)!.id).toBe('missing-exe');

    for (const id of ['first-app', 'bash']) {
      const dup = await admin.post('/api/apps', { id, title: 'Again', path: 'sh' });
      expect(dup.statusCode).toBe(409);
      expect(dup.json()).toEqual({ error: `App ${id} already exists`, code: 'app_exists', app: id });
    }
    const events = await t()
      .db.db.selectFrom('event')
      .select(['description', 'project_id', 'user_id'])
      .where('object_type', '=', 'app')
      .execute();
    expect(events).toContainEqual({
      description: 'App First (first-app) created',
      project_id: null,
      user_id: admin.id,
    });
    expect((await admin.del('/api/apps/missing-exe')).statusCode).toBe(204);
    expect((await admin.del('/api/apps/first-app')).statusCode).toBe(204);
  });

  it('never deletes a default app, nor a custom one that templates use', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const bash = await admin.del('/api/apps/bash');
    expect(bash.statusCode).toBe(400);
    expect(bash.json()).toEqual({ error: 'Default apps cannot be deleted', code: 'builtin_app_delete' });
    expect((await admin.del('/api/apps/no-such-app')).json()).toEqual({
      error: 'App not found',
      code: 'app_not_found',
    });
    expect((await admin.del('/api/apps/no-such-app')).statusCode).toBe(404);
    expect((await admin.put('/api/apps/no-such-app', { title: 'X', path: 'sh' })).statusCode).toBe(404);
    expect((await admin.post('/api/apps/no-such-app/active', { active: true })).statusCode).toBe(404);

    expect((await admin.post('/api/apps', { id: 'in-use', title: 'In use', path: 'sh' })).statusCode).toBe(201);
    const p = await createProject(admin, 'Apps refs');
    const s = await setupTemplate(admin, p, gitRepo({ 'x.sh': 'true\n' }), {
      name: 'uses it',
      app: 'in-use',
      playbook: 'x.sh',
    });
    const refused = await admin.del('/api/apps/in-use');
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toEqual({
      error: "Can't delete the app",
      code: 'app_in_use',
      references: {
        templates: [{ id: s.templateId, name: 'Apps refs / uses it' }],
        inventories: [],
        repositories: [],
        schedules: [],
        integrations: [],
      },
    });
    expect((await admin.del(`/api/project/${p}/templates/${s.templateId}`)).statusCode).toBe(204);
    expect((await admin.del('/api/apps/in-use')).statusCode).toBe(204);
    expect(await findApp(admin, 'in-use')).toBeUndefined();
  });

  it('reflects the active toggle in the list and refuses tasks of an inactive app', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const p = await createProject(admin);
    const s = await setupTemplate(admin, p, gitRepo({ 'hi.sh': 'echo "hi from bash"\n' }), {
      app: 'bash',
      playbook: 'hi.sh',
    });

    expect((await admin.post('/api/apps/bash/active', { active: 'no' })).json()).toEqual({
      error: 'Active must be true or false',
      code: 'must_be_true_or_false',
      label_key: 'active',
      field: 'active',
    });
    expect((await admin.post('/api/apps/bash/active', { active: false })).statusCode).toBe(204);
    expect(await findApp(admin, 'bash')).toMatchObject({
      active: false,
      found: true,
      title: 'Bash Script',
      path: 'bash',
    });
    const refused = await admin.post(`/api/project/${p}/tasks`, { template_id: s.templateId });
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toEqual({
      error: 'App Bash Script is not active',
      code: 'app_inactive',
      app: 'Bash Script',
    });
    expect((await admin.get(`/api/project/${p}/tasks`)).json()).toEqual([]);

    expect((await admin.post('/api/apps/bash/active', { active: true })).statusCode).toBe(204);
    expect(await findApp(admin, 'bash')).toMatchObject({ active: true });
    const task = await waitForTask(admin, p, await runTask(admin, p, { template_id: s.templateId }));
    expect(task.status).toBe('success');
    expect(await taskLog(admin, p, task.id as number)).toContain('hi from bash');

    // Switched on by an admin, an app is active even without its executable (the task then fails to start).
    const pulumi = await setupTemplate(admin, p, gitRepo({ 'stack/Pulumi.yaml': 'name: x\n' }), {
      app: 'pulumi',
      playbook: 'stack',
    });
    expect((await admin.post(`/api/project/${p}/tasks`, { template_id: pulumi.templateId })).json()).toEqual({
      error: 'App Pulumi Code is not active',
      code: 'app_inactive',
      app: 'Pulumi Code',
    });
    expect((await admin.post('/api/apps/pulumi/active', { active: true })).statusCode).toBe(204);
    const failed = await waitForTask(admin, p, await runTask(admin, p, { template_id: pulumi.templateId }));
    expect(failed.status).toBe('error');
    expect((await taskLog(admin, p, failed.id as number)).join('\n')).toMatch(/pulumi could not be started/);
    expect((await admin.post('/api/apps/pulumi/active', { active: false })).statusCode).toBe(204);

    const events = (
      await t().db.db.selectFrom('event').select('description').where('object_type', '=', 'app').execute()
    ).map((e) => e.description);
    expect(events).toEqual(
      expect.arrayContaining(['App Bash Script (bash) deactivated', 'App Bash Script (bash) activated']),
    );
  });

  it('runs a template of a custom app: its path, its arguments, the script and the template and task arguments', async () => {
    const admin = await signedInUser(t(), { admin: true });
    expect(
      (await admin.post('/api/apps', { id: 'sh-custom', title: 'Strict shell', path: '/bin/sh', args: ['-e'] }))
        .statusCode,
    ).toBe(201);
    expect(
      (await admin.post('/api/apps', { id: 'recorded', title: 'Recorded', path: recorder, args: ['--strict', 'x y'] }))
        .statusCode,
    ).toBe(201);
    const p = await createProject(admin);
    const repo = gitRepo({ 'run.sh': 'echo "custom $* region=$region"\nfalse\necho "still running"\n' });

    const unknown = await admin.post(`/api/project/${p}/templates`, {
      name: 'bad',
      app: 'no-such-app',
      playbook: 'run.sh',
      repository_id: 1,
      environment_id: 1,
    });
    expect(unknown.json()).toEqual({ error: 'App not found', code: 'app_not_found', field: 'app' });

    const sh = await setupTemplate(
      admin,
      p,
      repo,
      { app: 'sh-custom', playbook: 'run.sh', arguments: '["one"]', allow_override_args_in_task: true },
      { json: '{"region": "eu-west"}' },
    );
    const shTask = await waitForTask(
      admin,
      p,
      await runTask(admin, p, { template_id: sh.templateId, arguments: '["two"]' }),
    );
    const shLog = await taskLog(admin, p, shTask.id as number);
    expect(shLog).toContain('custom one two region=eu-west');
    // `-e` came from the app: the script stops at `false`.
    expect(shLog).not.toContain('still running');
    expect(shTask.status).toBe('error');

    const rec = await setupTemplate(admin, p, repo, {
      app: 'recorded',
      playbook: 'run.sh',
      arguments: '["one"]',
      survey_vars: [{ name: 'size', title: 'Size', type: 'int' }],
    });
    const recTask = await waitForTask(
      admin,
      p,
      await runTask(admin, p, { template_id: rec.templateId, environment: '{"size": "7"}' }),
    );
    expect(recTask.status).toBe('success');
    expect(argLines(await taskLog(admin, p, recTask.id as number))).toEqual([
      'exe=recorder',
      'arg=--strict',
      'arg=x y',
      `arg=${t().config.taskDir}/task_${recTask.id}/repository/run.sh`,
      'arg=one',
      `env task=${recTask.id} size=7`,
    ]);
  });

  it('uses a changed path and arguments from the next task on', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const p = await createProject(admin);
    const repo = gitRepo({ 'main.py': 'import sys\nprint("real python", sys.argv[1:])\n' });
    const s = await setupTemplate(admin, p, repo, { app: 'python', playbook: 'main.py', arguments: '["--flag"]' });
    const before = await waitForTask(admin, p, await runTask(admin, p, { template_id: s.templateId }));
    expect(await taskLog(admin, p, before.id as number)).toContain("real python ['--flag']");

    const bad = await admin.post('/api/apps/ansible', { title: 'Ansible', path: 'ansible-playbook', args: ['-v'] });
    expect(bad.json()).toEqual({
      error: 'Only script apps take extra arguments',
      code: 'app_args_not_taken',
      field: 'args',
    });
    const changed = await admin.post('/api/apps/python', {
      title: 'Recorded Python',
      path: recorder,
      priority: 50,
      args: ['-X', 'dev'],
    });
    expect(changed.statusCode).toBe(204);
    expect(await findApp(admin, 'python')).toMatchObject({
      id: 'python',
      title: 'Recorded Python',
      path: recorder,
      priority: 50,
      args: ['-X', 'dev'],
      builtin: true,
      active: true,
      found: true,
    });
    expect((await listApps(admin))[0]!.id).toBe('python');

    const after = await waitForTask(admin, p, await runTask(admin, p, { template_id: s.templateId }));
    expect(after.status).toBe('success');
    expect(argLines(await taskLog(admin, p, after.id as number))).toEqual([
      'exe=recorder',
      'arg=-X',
      'arg=dev',
      'arg=-u',
      'arg=--',
      `arg=${t().config.taskDir}/task_${after.id}/repository/main.py`,
      'arg=--flag',
      `env task=${after.id} size=`,
    ]);
    // The toggle keeps the changed settings; setting the defaults back restores python.
    expect((await admin.post('/api/apps/python/active', { active: true })).statusCode).toBe(204);
    expect(await findApp(admin, 'python')).toMatchObject({ title: 'Recorded Python', path: recorder });
    expect(
      (await admin.post('/api/apps/python', { title: 'Python Script', path: 'python3', priority: 3 })).statusCode,
    ).toBe(204);
    const back = await waitForTask(admin, p, await runTask(admin, p, { template_id: s.templateId }));
    expect(await taskLog(admin, p, back.id as number)).toContain("real python ['--flag']");
  });
});
