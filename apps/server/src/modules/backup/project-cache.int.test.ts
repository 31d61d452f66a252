import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { gitRepo } from '../../test/git-fixture.js';
import { createProject, engines, signedInUser, useTestApp } from '../../test/harness.js';
import { runTask, setupTemplate, waitForTask } from '../../test/tasks.js';

describe.each(engines)('project cache ($name)', (engine) => {
  const t = useTestApp(engine);

  it("removes folders finished runs left behind and the project's kept checkouts, and keeps running ones, state, known_hosts and other projects' checkouts", async () => {
    const ctx = t();
    const admin = await signedInUser(ctx, { admin: true });
    const p = await createProject(admin);
    const other = await createProject(admin);
    const repo = gitRepo({ 'run.sh': 'echo hi\n' });
    const mine = await setupTemplate(admin, p, repo, { app: 'bash', playbook: 'run.sh' });
    const theirs = await setupTemplate(admin, other, repo, { app: 'bash', playbook: 'run.sh' });
    const finished = await runTask(admin, p, { template_id: mine.templateId });
    const running = await runTask(admin, p, { template_id: mine.templateId });
    const foreign = await runTask(admin, other, { template_id: theirs.templateId });
    for (const [proj, id] of [
      [p, finished],
      [p, running],
      [other, foreign],
    ] as const)
      await waitForTask(admin, proj, id);
    // As if the server had died during `running`, and the others had left their folders behind.
    await ctx.db.db.updateTable('task').set({ status: 'running' }).where('id', '=', running).execute();
    const data = ctx.config.dataDir;
    const folder = (id: number) => path.join(ctx.config.taskDir, `task_${id}`);
    for (const id of [finished, running, foreign]) {
      fs.mkdirSync(path.join(folder(id), 'repository'), { recursive: true });
      fs.writeFileSync(path.join(folder(id), 'repository', 'file'), 'x');
    }
    const state = path.join(data, 'terraform', `template_${mine.templateId}`, 'terraform.tfstate');
    const knownHosts = path.join(data, 'known_hosts', `project_${p}`);
    for (const f of [state, knownHosts]) {
      fs.mkdirSync(path.dirname(f), { recursive: true });
      fs.writeFileSync(f, 'keep me');
    }

    // The runs left a kept checkout each project.
    const checkouts = path.join(data, 'checkouts');
    const kept = (project: number) => fs.readdirSync(checkouts).filter((n) => n.startsWith(`project_${project}-`));
    expect(kept(p)).toHaveLength(1);
    expect(kept(other)).toHaveLength(1);

    const res = await admin.del(`/api/project/${p}/cache`);
    expect(res.statusCode).toBe(204);
    expect(kept(p)).toEqual([]);
    expect(kept(other)).toHaveLength(1);
    expect(fs.existsSync(folder(finished))).toBe(false);
    expect(fs.existsSync(folder(running))).toBe(true);
    expect(fs.existsSync(folder(foreign))).toBe(true);
    expect(fs.readFileSync(state, 'utf8')).toBe('keep me');
    expect(fs.readFileSync(knownHosts, 'utf8')).toBe('keep me');
    expect((await admin.get(`/api/project/${p}/events/last`)).json()[0].description).toBe('Project cache cleared');

    // Nothing left to clear is not an error.
    expect((await admin.del(`/api/project/${p}/cache`)).statusCode).toBe(204);
    await ctx.db.db.updateTable('task').set({ status: 'error' }).where('id', '=', running).execute();
  });

  it("a deleted project's kept checkouts go with it; those of projects deleted elsewhere go at the next start's prune", async () => {
    const ctx = t();
    const admin = await signedInUser(ctx, { admin: true });
    const doomed = await createProject(admin);
    const staying = await createProject(admin);
    const repo = gitRepo({ 'run.sh': 'echo hi\n' });
    for (const p of [doomed, staying]) {
      const { templateId } = await setupTemplate(admin, p, repo, { app: 'bash', playbook: 'run.sh' });
      expect((await waitForTask(admin, p, await runTask(admin, p, { template_id: templateId }))).status).toBe('success');
    }
    const checkouts = path.join(ctx.config.dataDir, 'checkouts');
    const kept = (project: number) => fs.readdirSync(checkouts).filter((n) => n.startsWith(`project_${project}-`));
    expect(kept(doomed)).toHaveLength(1);

    expect((await admin.del(`/api/project/${doomed}`)).statusCode).toBe(204);
    expect(kept(doomed)).toEqual([]);
    expect(kept(staying)).toHaveLength(1);

    // Another node deleted a project this one kept a checkout of: an entry of a project id the
    // database does not hold goes at the prune; the living project's stays.
    const gone = 2_000_000_000;
    fs.cpSync(path.join(checkouts, kept(staying)[0]!), path.join(checkouts, `project_${gone}-${'0'.repeat(16)}-${'1'.repeat(16)}`), { recursive: true, verbatimSymlinks: true });
    expect(kept(gone)).toHaveLength(1);
    expect(await ctx.app.services.projectCache.pruneDeleted()).toBe(1);
    expect(kept(gone)).toEqual([]);
    expect(kept(staying)).toHaveLength(1);
  });
});
