import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../../app.js';
import { createDb } from '../../db/db.js';
import { commitFiles, gitRepo } from '../../test/git-fixture.js';
import { createProject, engines, signedInUser, useTestApp } from '../../test/harness.js';
import { setupTemplate, waitForTask } from '../../test/tasks.js';

describe.each(engines)('schedules ($name)', (engine) => {
  const t = useTestApp(engine);

  it('creates, validates, toggles and deletes schedules; the template lists them', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const p = await createProject(admin);
    const s = await setupTemplate(admin, p, gitRepo({ 'a.sh': 'echo a\n' }), { app: 'bash', playbook: 'a.sh' });
    const bad = async (body: object, message: string) => {
      const r = await admin.post(`/api/project/${p}/schedules`, { name: 'n', template_id: s.templateId, cron_format: '* * * * *', ...body });
      expect(r.statusCode).toBe(400);
      expect(r.json().error).toMatch(message);
    };
    // An empty name is the cron expression's (compat/schedules-shapes.int.test.ts); a bad one is still refused.
    await bad({ name: 'a\u0007b' }, 'Name must not contain control characters');
    await bad({ cron_format: '' }, 'Cron is required');
    await bad({ cron_format: '99 * * * *' }, 'Invalid cron');
    await bad({ template_id: undefined }, 'Template is required');
    const other = await createProject(admin);
    const otherTpl = await setupTemplate(admin, other, gitRepo({ 'b.sh': 'echo b\n' }), { app: 'bash', playbook: 'b.sh' });
    await bad({ template_id: otherTpl.templateId }, 'Template not found in this project');

    const created = await admin.post(`/api/project/${p}/schedules`, { name: 'nightly', template_id: s.templateId, cron_format: '0 3 * * *' });
    expect(created.statusCode).toBe(201);
    expect(created.json()).toMatchObject({ name: 'nightly', cron_format: '0 3 * * *', active: true, tpl_name: 'tpl', repository_id: null });
    const id = created.json().id;
    expect((await admin.put(`/api/project/${p}/schedules/${id}/active`, { active: false })).statusCode).toBe(204);
    expect((await admin.get(`/api/project/${p}/schedules/${id}`)).json().active).toBe(false);
    expect((await admin.get(`/api/project/${p}/templates/${s.templateId}/schedules`)).json().map((x: { id: number }) => x.id)).toEqual([id]);
    expect((await admin.get(`/api/project/${p}/templates/${s.templateId}/refs`)).json().schedules).toEqual([{ id, name: 'nightly' }]);
    expect((await admin.post(`/api/project/${p}/schedules/validate`, { cron_format: '*/5 * * * *' })).statusCode).toBe(200);
    const badCron = await admin.post(`/api/project/${p}/schedules/validate`, { cron_format: 'nope' });
    expect([badCron.statusCode, badCron.json().error]).toEqual([400, expect.stringMatching(/^Cron: /)]);
    expect((await admin.del(`/api/project/${p}/schedules/${id}`)).statusCode).toBe(204);
    expect((await admin.get(`/api/project/${p}/schedules`)).json()).toEqual([]);
  });

  it('fires a real task once per due time, even with two servers on one database', async () => {
    const ctx = t();
    const admin = await signedInUser(ctx, { admin: true });
    const p = await createProject(admin);
    const s = await setupTemplate(admin, p, gitRepo({ 'tick.sh': 'echo tick\n' }), { app: 'bash', playbook: 'tick.sh' });
    const id = (await admin.post(`/api/project/${p}/schedules`, { name: 'every minute', template_id: s.templateId, cron_format: '* * * * *' })).json().id;
    // A second server process: its own app on the same database.
    const db2 = createDb(ctx.config.dbUrl);
    const app2 = await buildApp({ config: ctx.config, db: db2, secretKey: randomBytes(32), nodeId: 'second-node' });
    try {
      const at = new Date(Date.now() + 61_000);
      const fired = await Promise.all([ctx.app.services.scheduler.tick(at), app2.services.scheduler.tick(at), ctx.app.services.scheduler.tick(at)]);
      expect(fired.reduce((a, b) => a + b, 0)).toBe(1);
      expect(await ctx.app.services.scheduler.tick(at)).toBe(0);
      let tasks = (await admin.get(`/api/project/${p}/templates/${s.templateId}/tasks`)).json();
      expect(tasks).toHaveLength(1);
      expect(tasks[0]).toMatchObject({ schedule_id: id, message: 'Schedule every minute' });
      const done = await waitForTask(admin, p, tasks[0].id);
      expect(done.status).toBe('success');
      // Each next minute is a new due time, taken by exactly one of the two nodes: three minutes, three tasks.
      for (const minute of [1, 2]) {
        const next = new Date(at.getTime() + minute * 60_000);
        const both = await Promise.all([app2.services.scheduler.tick(next), ctx.app.services.scheduler.tick(next)]);
        expect(both.reduce((a, b) => a + b, 0)).toBe(1);
      }
      await admin.put(`/api/project/${p}/schedules/${id}/active`, { active: false });
      expect(await ctx.app.services.scheduler.tick(new Date(at.getTime() + 240_000))).toBe(0);
      tasks = (await admin.get(`/api/project/${p}/templates/${s.templateId}/tasks`)).json();
      expect(tasks).toHaveLength(3);
      for (const x of tasks) await waitForTask(admin, p, x.id);
    } finally {
      await app2.close();
      await db2.close();
    }
  });

  it('runs on a new commit only: the first check learns the head, no commit runs nothing', async () => {
    const ctx = t();
    const admin = await signedInUser(ctx, { admin: true });
    const p = await createProject(admin);
    const repo = gitRepo({ 'build.sh': 'echo building $(git rev-parse --short HEAD 2>/dev/null)\n' });
    const s = await setupTemplate(admin, p, repo, { app: 'bash', playbook: 'build.sh' });
    await admin.post(`/api/project/${p}/schedules`, { name: 'on commit', template_id: s.templateId, cron_format: '* * * * *', repository_id: s.repositoryId });
    const tasks = async () => (await admin.get(`/api/project/${p}/templates/${s.templateId}/tasks`)).json() as Promise<Array<{ id: number; commit_hash: string }>>;
    const minute = (n: number) => new Date(Date.now() + n * 60_000 + 1000);
    expect(await ctx.app.services.scheduler.tick(minute(1))).toBe(0);
    expect(await ctx.app.services.scheduler.tick(minute(2))).toBe(0);
    expect(await tasks()).toHaveLength(0);
    const hash = commitFiles(repo, { 'CHANGELOG': 'v2\n' }, [], 'second');
    expect(await ctx.app.services.scheduler.tick(minute(3))).toBe(1);
    expect(await ctx.app.services.scheduler.tick(minute(4))).toBe(0);
    const list = await tasks();
    expect(list).toHaveLength(1);
    const done = await waitForTask(admin, p, list[0]!.id);
    expect(done).toMatchObject({ status: 'success', commit_hash: hash });
  });
});
