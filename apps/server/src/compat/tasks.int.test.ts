import { SESSION_COOKIE, taskSchema, type WsMessage } from '@gantry/contracts';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { gitRepo } from '../test/git-fixture.js';
import { addMember, createProject, engines, signedInUser, useTestApp, type Caller } from '../test/harness.js';
import { setupTemplate, taskLog, waitForTask } from '../test/tasks.js';
import { apiToken, semaphoreRequest } from './tasks-client.js';

// Semaphore's console and API scripts against the task API: top-level Ansible options (issue 11
// item 1), task rows with their build task (6), the admin's active tasks (7), update frames (15).

const markers = fs.mkdtempSync(path.join(os.tmpdir(), 'gantry-compat-'));
afterAll(() => fs.rmSync(markers, { recursive: true, force: true }));
// A root server's tasks run as an unprivileged user, who must be able to leave its markers here.
fs.chmodSync(markers, 0o755);

/** Touches a marker per host: in --check mode Ansible reports the change but makes none. */
const markerPlaybook = (dir: string) => `
- hosts: all
  gather_facts: false
  tasks:
    - name: leave a marker
      ansible.builtin.file:
        path: "${dir}/marker-{{ inventory_hostname }}"
        state: touch
`;

const INVENTORY = [
  '[web]',
  'web1 ansible_connection=local ansible_python_interpreter=/usr/bin/python3',
  'web2 ansible_connection=local ansible_python_interpreter=/usr/bin/python3',
].join('\n');

describe.each(engines)('Semaphore clients: tasks ($name)', (engine) => {
  // No sandbox: the playbook's marker must land where the test looks (the sandbox gives tasks a private /tmp).
  const t = useTestApp(engine, { GANTRY_TASK_SANDBOX: 'off' });

  const ansibleTemplate = async (admin: Caller, taskParams: Record<string, unknown>) => {
    const p = await createProject(admin);
    const dir = fs.mkdtempSync(path.join(markers, 'run-'));
    fs.chmodSync(dir, 0o777);
    const key = (await admin.post(`/api/project/${p}/keys`, { name: 'none', type: 'none' })).json().id;
    const inv = (
      await admin.post(`/api/project/${p}/inventory`, {
        name: 'local',
        type: 'static',
        inventory: INVENTORY,
        ssh_key_id: key,
      })
    ).json().id;
    const s = await setupTemplate(admin, p, gitRepo({ 'site.yml': markerPlaybook(dir) }), {
      app: 'ansible',
      playbook: 'site.yml',
      inventory_id: inv,
      task_params: taskParams,
    });
    return { p, templateId: s.templateId, dir };
  };

  it('honours top-level dry_run/diff/debug/limit as the Semaphore console sends them: --check really passed', async () => {
    const ctx = t();
    const admin = await signedInUser(ctx, { admin: true });
    const { p, templateId, dir } = await ansibleTemplate(admin, { allow_debug: true, allow_override_limit: true });

    const res = await semaphoreRequest(ctx, { caller: admin }, 'POST', `/api/project/${p}/tasks`, {
      template_id: templateId,
      debug: true,
      dry_run: true,
      diff: true,
      playbook: '',
      limit: 'web1',
      environment: '{}',
      params: {},
    });
    expect(res.statusCode, res.body).toBe(201);
    const created = taskSchema.parse(res.json());
    expect(created).toMatchObject({
      debug: true,
      dry_run: true,
      diff: true,
      limit: 'web1',
      playbook: '',
      params: { debug: true, dry_run: true, diff: true, limit: ['web1'] },
    });
    const task = await waitForTask(admin, p, created.id);
    const log = (await taskLog(admin, p, created.id)).join('\n');
    expect(task.status, log).toBe('success');
    expect(log).toMatch(/web1\s+: ok=\d+\s+changed=1/);
    expect(log).not.toMatch(/web2\s+:/);
    // --check: the change was reported, not made.
    expect(fs.readdirSync(dir)).toEqual([]);

    // Re-run without dry_run, from an API script with a token: the marker appears for web1 only.
    const token = await apiToken(admin);
    const real = await semaphoreRequest(ctx, { token }, 'POST', `/api/project/${p}/tasks`, {
      template_id: templateId,
      limit: 'web1',
      params: {},
    });
    expect(real.statusCode, real.body).toBe(201);
    expect(real.json()).toMatchObject({ dry_run: false, diff: false, debug: false, limit: 'web1' });
    expect((await waitForTask(admin, p, real.json().id)).status).toBe('success');
    expect(fs.readdirSync(dir)).toEqual(['marker-web1']);

    // Task responses echo the options top level, so "re-run" pre-fills them.
    const row = await semaphoreRequest(ctx, { token }, 'GET', `/api/project/${p}/tasks/${created.id}`);
    expect(row.json()).toMatchObject({
      id: created.id,
      debug: true,
      dry_run: true,
      diff: true,
      limit: 'web1',
      playbook: '',
      tpl_playbook: 'site.yml',
    });
  });

  it('applies the template rules to top-level options; params win over them; a playbook override is refused', async () => {
    const ctx = t();
    const admin = await signedInUser(ctx, { admin: true });
    const strict = await ansibleTemplate(admin, {});
    const open = await ansibleTemplate(admin, { allow_override_limit: true });
    const post = (p: number, body: Record<string, unknown>) =>
      semaphoreRequest(ctx, { caller: admin }, 'POST', `/api/project/${p}/tasks`, body);
    const ids: Array<[number, number]> = [];

    for (const bad of ['@/etc/passwd', 'web1,-x', 'web1;rm']) {
      const res = await post(open.p, { template_id: open.templateId, limit: bad, params: {} });
      expect(res.statusCode, bad).toBe(400);
      expect(res.json()).toEqual({ error: expect.stringMatching(/^Limit item /), code: 'host_pattern_invalid', label_key: 'limit', item: expect.any(String), field: 'limit' });
    }
    const wrongType = await post(open.p, { template_id: open.templateId, limit: ['web1'] });
    expect([wrongType.statusCode, wrongType.json().error]).toEqual([400, expect.stringMatching(/limit/i)]);
    const otherPlaybook = await post(open.p, { template_id: open.templateId, playbook: 'other.yml' });
    expect([otherPlaybook.statusCode, otherPlaybook.json()]).toEqual([
      400,
      { error: 'Playbook cannot be overridden by a task; leave it empty to run the template playbook', code: 'playbook_override', field: 'playbook' },
    ]);
    expect((await admin.get(`/api/project/${open.p}/tasks`)).json()).toEqual([]);

    // The template does not allow a limit: dropped, as params.limit is. Debug is kept as asked
    // (an admin may always debug; the run decides, see compat/debug.int.test.ts).
    const dropped = await post(strict.p, {
      template_id: strict.templateId,
      limit: 'web1',
      debug: true,
      dry_run: true,
      params: {},
    });
    expect(dropped.statusCode).toBe(201);
    expect(dropped.json()).toMatchObject({ limit: '', debug: true, dry_run: true });
    ids.push([strict.p, dropped.json().id]);

    // Both given: params win (Semaphore reads the top-level limit only when params has none).
    const both = await post(open.p, {
      template_id: open.templateId,
      limit: 'web1',
      dry_run: false,
      params: { limit: ['web2'], dry_run: true },
    });
    expect(both.json()).toMatchObject({ limit: 'web2', dry_run: true, params: { limit: ['web2'], dry_run: true } });
    ids.push([open.p, both.json().id]);
    // Spaces around commas are trimmed; the template's own playbook may be named.
    const list = await post(open.p, {
      template_id: open.templateId,
      limit: ' web1 , web2 ',
      playbook: 'site.yml',
      dry_run: true,
    });
    expect(list.json()).toMatchObject({ limit: 'web1,web2', params: { limit: ['web1', 'web2'] } });
    ids.push([open.p, list.json().id]);
    for (const [p, id] of ids) expect((await waitForTask(admin, p, id)).status).toBe('success');
  });

  it('lists, shows and stops active tasks for admins at /api/tasks with Semaphore locations', async () => {
    const ctx = t();
    const admin = await signedInUser(ctx, { admin: true });
    const member = await signedInUser(ctx);
    const created = await admin.post('/api/projects', { name: 'one at a time', max_parallel_tasks: 1 });
    const p = created.json().id as number;
    await addMember(ctx, p, member.id, 'manager');
    const s = await setupTemplate(admin, p, gitRepo({ 'wait.sh': 'echo waiting; sleep 60\n' }), {
      app: 'bash',
      playbook: 'wait.sh',
    });
    const token = await apiToken(admin);
    const start = async () =>
      (await semaphoreRequest(ctx, { token }, 'POST', `/api/project/${p}/tasks`, { template_id: s.templateId })).json()
        .id as number;
    const running = await start();
    await waitForTask(admin, p, running, ['running']);
    const queued = await start();

    const list = await semaphoreRequest(ctx, { caller: admin }, 'GET', '/api/tasks');
    expect(list.statusCode).toBe(200);
    const mine = list.json().filter((x: { project_id: number }) => x.project_id === p);
    expect(mine).toEqual([
      {
        task_id: running,
        project_id: p,
        template_id: s.templateId,
        username: admin.username,
        status: 'running',
        runner_id: null,
        location: 'running',
        runner_name: null,
      },
      {
        task_id: queued,
        project_id: p,
        template_id: s.templateId,
        username: admin.username,
        status: 'waiting',
        runner_id: null,
        location: 'queue',
        runner_name: null,
      },
    ]);

    const one = await semaphoreRequest(ctx, { token }, 'GET', `/api/tasks/${queued}`);
    expect(one.statusCode).toBe(200);
    expect(taskSchema.parse(one.json())).toMatchObject({
      id: queued,
      project_id: p,
      status: 'waiting',
      tpl_alias: 'tpl',
      tpl_app: 'bash',
      user_name: `Name ${admin.username}`,
      build_task: null,
    });
    expect(one.json()).toEqual((await admin.get(`/api/project/${p}/tasks/${queued}`)).json());

    // Admins only, even for a manager of the project.
    for (const [method, url] of [
      ['GET', '/api/tasks'],
      ['GET', `/api/tasks/${queued}`],
      ['DELETE', `/api/tasks/${queued}`],
    ] as const) {
      expect((await semaphoreRequest(ctx, { caller: member }, method, url)).statusCode, `${method} ${url}`).toBe(403);
    }
    expect((await semaphoreRequest(ctx, { caller: admin }, 'GET', '/api/tasks/999999')).statusCode).toBe(404);
    expect((await semaphoreRequest(ctx, { caller: admin }, 'GET', '/api/tasks/abc')).statusCode).toBe(400);

    const stopQueued = await semaphoreRequest(ctx, { caller: admin }, 'DELETE', `/api/tasks/${queued}`);
    expect([stopQueued.statusCode, stopQueued.body]).toEqual([204, '']);
    expect((await admin.get(`/api/project/${p}/tasks/${queued}`)).json().status).toBe('stopped');
    const stopRunning = await semaphoreRequest(ctx, { token }, 'DELETE', `/api/tasks/${running}`);
    expect(stopRunning.statusCode).toBe(204);
    expect((await waitForTask(admin, p, running)).status).toBe('stopped');
    // Already ended: nothing to stop, still 204 as in Semaphore.
    expect((await semaphoreRequest(ctx, { caller: admin }, 'DELETE', `/api/tasks/${running}`)).statusCode).toBe(204);
    expect((await admin.get(`/api/project/${p}/tasks/${running}`)).json().status).toBe('stopped');
  });

  it('deletes a finished task and its log with DELETE /project/{id}/tasks/{task_id}; a running one is refused', async () => {
    const ctx = t();
    const admin = await signedInUser(ctx, { admin: true });
    const runner = await signedInUser(ctx);
    const p = await createProject(admin);
    await addMember(ctx, p, runner.id, 'task_runner');
    const s = await setupTemplate(admin, p, gitRepo({ 'say.sh': 'echo said-once\n', 'wait.sh': 'sleep 60\n' }), { app: 'bash', playbook: 'say.sh' });
    const token = await apiToken(admin);
    const done = (await semaphoreRequest(ctx, { token }, 'POST', `/api/project/${p}/tasks`, { template_id: s.templateId })).json().id as number;
    expect((await waitForTask(admin, p, done)).status).toBe('success');
    // Deleting needs the manage-resources permission: a task runner may not.
    expect((await semaphoreRequest(ctx, { caller: runner }, 'DELETE', `/api/project/${p}/tasks/${done}`)).statusCode).toBe(403);
    const del = await semaphoreRequest(ctx, { token }, 'DELETE', `/api/project/${p}/tasks/${done}/`);
    expect([del.statusCode, del.body]).toEqual([204, '']);
    expect((await admin.get(`/api/project/${p}/tasks/${done}`)).statusCode).toBe(404);
    expect((await admin.get(`/api/project/${p}/tasks/${done}/output`)).statusCode).toBe(404);
    expect(await ctx.db.db.selectFrom('task_output').select('seq').where('task_id', '=', done).execute()).toEqual([]);
    expect((await semaphoreRequest(ctx, { token }, 'DELETE', `/api/project/${p}/tasks/${done}`)).statusCode).toBe(404);

    const w = await admin.post(`/api/project/${p}/templates`, { name: 'wait', app: 'bash', playbook: 'wait.sh', repository_id: s.repositoryId, environment_id: s.environmentId });
    const running = (await semaphoreRequest(ctx, { token }, 'POST', `/api/project/${p}/tasks`, { template_id: w.json().id })).json().id as number;
    await waitForTask(admin, p, running, ['running']);
    const refused = await semaphoreRequest(ctx, { token }, 'DELETE', `/api/project/${p}/tasks/${running}`);
    expect([refused.statusCode, refused.json()]).toEqual([409, { error: 'Stop the task before deleting it', code: 'task_not_finished' }]);
    await admin.post(`/api/project/${p}/tasks/${running}/stop`, { force: true });
    expect((await waitForTask(admin, p, running)).status).toBe('stopped');
  });

  it('sends update frames with start, end, version and template_id, the starting frame included', async () => {
    const ctx = t();
    const admin = await signedInUser(ctx, { admin: true });
    const p = await createProject(admin);
    const s = await setupTemplate(admin, p, gitRepo({ 'run.sh': 'echo built\n' }), {
      app: 'bash',
      playbook: 'run.sh',
      type: 'build',
      start_version: '3',
    });
    const ws = await ctx.app.injectWS('/api/ws', { headers: { cookie: `${SESSION_COOKIE}=${admin.cookie}` } });
    const messages: WsMessage[] = [];
    ws.on('message', (data: Buffer) => messages.push(JSON.parse(data.toString()) as WsMessage));
    try {
      const res = await semaphoreRequest(ctx, { caller: admin }, 'POST', `/api/project/${p}/tasks`, {
        template_id: s.templateId,
        params: {},
      });
      const id = res.json().id as number;
      const task = await waitForTask(admin, p, id);
      expect(task.status).toBe('success');
      for (
        let i = 0;
        i < 200 && !messages.some((m) => m.type === 'update' && m.task_id === id && m.status === 'success');
        i++
      )
        await new Promise((r) => setTimeout(r, 25));
      const updates = messages.filter((m) => m.type === 'update' && m.task_id === id);
      expect(updates.map((m) => m.type === 'update' && m.status)).toEqual([
        'waiting',
        'starting',
        'running',
        'success',
      ]);
      for (const m of updates) {
        expect(Object.keys(m).sort()).toEqual([
          'end',
          'project_id',
          'start',
          'status',
          'task_id',
          'template_id',
          'type',
          'version',
        ]);
        expect(m).toMatchObject({ project_id: p, template_id: s.templateId, version: '3' });
      }
      const [waiting, starting, running, success] = updates as Array<Extract<WsMessage, { type: 'update' }>>;
      expect([waiting!.start, waiting!.end]).toEqual([null, null]);
      expect([starting!.start, starting!.end]).toEqual([task.start, null]);
      expect([running!.start, running!.end]).toEqual([task.start, null]);
      expect([success!.start, success!.end]).toEqual([task.start, task.end]);
    } finally {
      ws.terminate();
    }
  });
});
