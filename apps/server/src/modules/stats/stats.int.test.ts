import { describe, expect, it } from 'vitest';
import { gitRepo } from '../../test/git-fixture.js';
import { addMember, createProject, engines, signedInUser, useTestApp } from '../../test/harness.js';
import { runTask, setupTemplate, waitForTask } from '../../test/tasks.js';

describe.each(engines)('statistics and events ($name)', (engine) => {
  const t = useTestApp(engine);

  it('counts success, error and stopped tasks per day, per template and per user', async () => {
    const ctx = t();
    const admin = await signedInUser(ctx, { admin: true });
    const runner = await signedInUser(ctx);
    const p = await createProject(admin);
    await addMember(ctx, p, runner.id, 'task_runner');
    const repo = gitRepo({ 'ok.sh': 'echo ok\n', 'fail.sh': 'exit 1\n', 'wait.sh': 'sleep 30\n' });
    const ok = await setupTemplate(admin, p, repo, { name: 'ok', app: 'bash', playbook: 'ok.sh' });
    const fail = await setupTemplate(admin, p, repo, { name: 'fail', app: 'bash', playbook: 'fail.sh' });
    const wait = await setupTemplate(admin, p, repo, { name: 'wait', app: 'bash', playbook: 'wait.sh' });
    for (const [who, tpl] of [[admin, ok], [admin, ok], [runner, ok], [admin, fail]] as const) {
      await waitForTask(who, p, await runTask(who, p, { template_id: tpl.templateId }));
    }
    const long = await runTask(runner, p, { template_id: wait.templateId });
    await waitForTask(runner, p, long, ['running']);
    await runner.post(`/api/project/${p}/tasks/${long}/stop`, { force: true });
    expect((await waitForTask(runner, p, long)).status).toBe('stopped');

    const today = new Date().toISOString().slice(0, 10);
    const weekAgo = new Date(Date.now() - 6 * 86400_000).toISOString().slice(0, 10);
    const all = (await admin.get(`/api/project/${p}/stats?start=${weekAgo}`)).json();
    expect(all).toEqual([{ date: today, count_by_status: { success: 3, error: 1, stopped: 1 } }]);
    expect((await admin.get(`/api/project/${p}/stats?start=${weekAgo}&user_id=${runner.id}`)).json()).toEqual([{ date: today, count_by_status: { success: 1, error: 0, stopped: 1 } }]);
    expect((await admin.get(`/api/project/${p}/templates/${ok.templateId}/stats?start=${weekAgo}`)).json()).toEqual([{ date: today, count_by_status: { success: 3, error: 0, stopped: 0 } }]);
    const tomorrow = new Date(Date.now() + 86400_000).toISOString().slice(0, 10);
    expect((await admin.get(`/api/project/${p}/stats?start=${tomorrow}`)).json()).toEqual([]);
    expect((await admin.get(`/api/project/${p}/stats?start=yesterday`)).json()).toEqual({ error: 'Start must be a date (YYYY-MM-DD)', code: 'date_required', label_key: 'start', field: 'start' });

    // Task events, and the user's events across their projects.
    const events = (await runner.get('/api/events')).json().map((e: { description: string }) => e.description);
    expect(events).toContain(`Task #${long} finished: stopped`);
    const stranger = await signedInUser(ctx);
    expect((await stranger.get('/api/events')).json()).toEqual([]);
    expect((await stranger.get(`/api/project/${p}/stats?start=${weekAgo}`)).statusCode).toBe(404);
  });
});
