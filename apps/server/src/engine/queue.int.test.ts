import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { insertReturningId } from '../db/portable.js';
import { gitRepo } from '../test/git-fixture.js';
import { createProject, engines, signedInUser, useTestApp } from '../test/harness.js';
import { runTask, setupTemplate, taskLog, waitForTask } from '../test/tasks.js';

// A recording stand-in for pwsh and pulumi: prints its argv, one argument a line.
const binDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gantry-rec-'));
// Tools on PATH must be readable by the task user (a root server's tasks run unprivileged).
fs.chmodSync(binDir, 0o755);
for (const exe of ['pwsh', 'pulumi']) {
  fs.writeFileSync(path.join(binDir, exe), `#!/bin/sh\necho "exe=${exe} cwd=$(basename "$PWD")"\nfor a in "$@"; do echo "arg=$a"; done\n`, { mode: 0o755 });
}

// Tasks get a private /tmp: the flag they wait for lives where their read-only view of the system shows it.
const flagDirs: string[] = [];
const flagFile = () => {
  flagDirs.push(fs.mkdtempSync(path.join('/var/tmp', 'gantry-flag-')));
  fs.chmodSync(flagDirs.at(-1)!, 0o755);
  return path.join(flagDirs.at(-1)!, 'go');
};
afterAll(() => {
  for (const d of flagDirs) fs.rmSync(d, { recursive: true, force: true });
});

describe.each(engines)('task queue and apps ($name)', (engine) => {
  const t = useTestApp(engine, { GANTRY_MAX_PARALLEL_TASKS: '3', PATH: `${binDir}:${process.env.PATH}` });

  it('honours the project limit: the next task starts the moment a slot frees', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const p = await createProject(admin);
    await admin.put(`/api/project/${p}`, { name: 'limited', max_parallel_tasks: 1 });
    const repo = gitRepo({ 'wait.sh': 'echo start; while [ ! -f "$WAIT_FLAG" ]; do sleep 0.05; done; echo end\n' });
    const flag = flagFile();
    const s = await setupTemplate(admin, p, repo, { app: 'bash', playbook: 'wait.sh' }, { env: JSON.stringify({ WAIT_FLAG: flag }) });
    const first = await runTask(admin, p, { template_id: s.templateId });
    const second = await runTask(admin, p, { template_id: s.templateId });
    await waitForTask(admin, p, first, ['running']);
    await new Promise((r) => setTimeout(r, 300));
    expect((await admin.get(`/api/project/${p}/tasks/${second}`)).json().status).toBe('waiting');
    const active = (await admin.get('/api/tasks')).json();
    expect(active.find((a: { task_id: number }) => a.task_id === second)).toMatchObject({ status: 'waiting', location: 'queue', runner_name: null, project_id: p });
    expect(active.find((a: { task_id: number }) => a.task_id === first)).toMatchObject({ location: 'running', runner_name: null });
    fs.writeFileSync(flag, '');
    expect((await waitForTask(admin, p, first)).status).toBe('success');
    expect((await waitForTask(admin, p, second)).status).toBe('success');
    const a = (await admin.get(`/api/project/${p}/tasks/${first}`)).json();
    const b = (await admin.get(`/api/project/${p}/tasks/${second}`)).json();
    expect(Date.parse(b.start)).toBeGreaterThanOrEqual(Date.parse(a.end) - 5);
  });

  it('honours the global limit across projects', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const repo = gitRepo({ 'wait.sh': 'while [ ! -f "$WAIT_FLAG" ]; do sleep 0.05; done\n' });
    const flag = flagFile();
    const ids: Array<[number, number]> = [];
    for (let i = 0; i < 4; i++) {
      const p = await createProject(admin);
      const s = await setupTemplate(admin, p, repo, { app: 'bash', playbook: 'wait.sh' }, { env: JSON.stringify({ WAIT_FLAG: flag }) });
      ids.push([p, await runTask(admin, p, { template_id: s.templateId })]);
    }
    await new Promise((r) => setTimeout(r, 500));
    const statuses = await Promise.all(ids.map(async ([p, id]) => (await admin.get(`/api/project/${p}/tasks/${id}`)).json().status));
    expect(statuses.filter((s) => s === 'running' || s === 'starting')).toHaveLength(3);
    expect(statuses.filter((s) => s === 'waiting')).toHaveLength(1);
    fs.writeFileSync(flag, '');
    for (const [p, id] of ids) expect((await waitForTask(admin, p, id)).status).toBe('success');
  });

  it('passes PowerShell and Pulumi their argv', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const p = await createProject(admin);
    const repo = gitRepo({ 'deploy.ps1': 'Write-Host hi\n', 'stack/Pulumi.yaml': 'name: x\n' });
    const ps = await setupTemplate(admin, p, repo, { app: 'powershell', playbook: 'deploy.ps1', arguments: '["-Name", "web"]' });
    const psTask = await waitForTask(admin, p, await runTask(admin, p, { template_id: ps.templateId }));
    const psLog = await taskLog(admin, p, psTask.id as number);
    expect(psTask.status).toBe('success');
    expect(psLog.filter((l) => l.startsWith('arg=') || l.startsWith('exe='))).toEqual([
      'exe=pwsh cwd=repository',
      'arg=-NoProfile',
      'arg=-NonInteractive',
      'arg=-File',
      `arg=${t().config.taskDir}/task_${psTask.id}/repository/deploy.ps1`,
      'arg=-Name',
      'arg=web',
    ]);
    const pu = await setupTemplate(admin, p, repo, { app: 'pulumi', playbook: 'stack', arguments: '["--refresh"]' });
    const puTask = await waitForTask(admin, p, await runTask(admin, p, { template_id: pu.templateId }));
    expect((await taskLog(admin, p, puTask.id as number)).filter((l) => l.startsWith('arg=') || l.startsWith('exe='))).toEqual([
      'exe=pulumi cwd=stack',
      'arg=up',
      'arg=--yes',
      'arg=--non-interactive',
      'arg=--refresh',
    ]);
  });

  it('numbers builds and deploys a successful build automatically', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const p = await createProject(admin);
    const repo = gitRepo({ 'build.sh': 'echo building\n', 'deploy.sh': 'echo deploying\n' });
    const build = await setupTemplate(admin, p, repo, { name: 'build', type: 'build', app: 'bash', playbook: 'build.sh', start_version: '1.0.0' });
    const deployTpl = await admin.post(`/api/project/${p}/templates`, {
      name: 'deploy',
      type: 'deploy',
      app: 'bash',
      playbook: 'deploy.sh',
      repository_id: build.repositoryId,
      environment_id: build.environmentId,
      build_template_id: build.templateId,
      autorun: true,
    });
    expect(deployTpl.statusCode).toBe(201);
    // Neither a deploy of this build that waits to be started nor another build's deploy starts.
    const sibling = { type: 'deploy', app: 'bash', playbook: 'deploy.sh', repository_id: build.repositoryId, environment_id: build.environmentId };
    const manual = await admin.post(`/api/project/${p}/templates`, { ...sibling, name: 'manual deploy', build_template_id: build.templateId, autorun: false });
    const otherBuild = await admin.post(`/api/project/${p}/templates`, { ...sibling, name: 'other build', type: 'build', start_version: '9.0.0' });
    const other = await admin.post(`/api/project/${p}/templates`, { ...sibling, name: 'other deploy', build_template_id: otherBuild.json().id, autorun: true });
    expect([manual.statusCode, otherBuild.statusCode, other.statusCode]).toEqual([201, 201, 201]);
    const b1 = await waitForTask(admin, p, await runTask(admin, p, { template_id: build.templateId }));
    const b2 = await waitForTask(admin, p, await runTask(admin, p, { template_id: build.templateId }));
    expect([b1.version, b2.version]).toEqual(['1.0.0', '1.0.1']);
    const until = Date.now() + 20_000;
    let deploys: Array<{ build_task_id: number; status: string; version: string }> = [];
    while (deploys.filter((d) => d.status === 'success').length < 2 && Date.now() < until) {
      deploys = (await admin.get(`/api/project/${p}/templates/${deployTpl.json().id}/tasks`)).json();
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(deploys.map((d) => [d.build_task_id, d.version, d.status]).sort((x, y) => Number(x[0]) - Number(y[0]))).toEqual([
      [b1.id, '1.0.0', 'success'],
      [b2.id, '1.0.1', 'success'],
    ]);
    for (const tpl of [manual, other]) expect((await admin.get(`/api/project/${p}/templates/${tpl.json().id}/tasks`)).json()).toEqual([]);
    const noBuild = await admin.post(`/api/project/${p}/tasks`, { template_id: deployTpl.json().id });
    expect(noBuild.json()).toEqual({ error: 'Build version is required', code: 'field_required', label_key: 'build_version', field: 'build_task_id' });
    const successes = (await admin.get(`/api/project/${p}/templates/${build.templateId}/tasks?status=success`)).json();
    expect(successes.map((x: { id: number }) => x.id).sort((x: number, y: number) => x - y)).toEqual([b1.id, b2.id]);
  });

  it('lists the apps and which are installed', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const apps = (await admin.get('/api/apps')).json();
    expect(apps.map((a: { id: string }) => a.id)).toEqual(['ansible', 'terraform', 'tofu', 'bash', 'python', 'powershell', 'pulumi']);
    expect(apps.find((a: { id: string }) => a.id === 'bash').active).toBe(true);
    expect(apps.find((a: { id: string }) => a.id === 'pulumi').active).toBe(true);
  });
});

describe.each(engines)('restart recovery ($name)', (engine) => {
  const t = useTestApp(engine, { GANTRY_MAX_PARALLEL_TASKS: '2' });

  it('fails the tasks a previous life left running and starts the waiting ones', async () => {
    const ctx = t();
    const admin = await signedInUser(ctx, { admin: true });
    const p = await createProject(admin);
    const repo = gitRepo({ 'ok.sh': 'echo fine\n' });
    const s = await setupTemplate(admin, p, repo, { app: 'bash', playbook: 'ok.sh' });
    // Rows as a crashed server would leave them: ours running, one waiting.
    const nodeId = fs.readFileSync(path.join(ctx.config.dataDir, 'node.id'), 'utf8').trim();
    const base = { project_id: p, template_id: s.templateId, message: '', commit_message: '', environment: '{}', params: '{}', created: new Date().toISOString() };
    const orphan = await insertReturningId(ctx.db.db, 'task', { ...base, status: 'running', node_id: nodeId });
    const stuck = await insertReturningId(ctx.db.db, 'task', { ...base, status: 'waiting_confirmation', node_id: nodeId });
    const waiting = await insertReturningId(ctx.db.db, 'task', { ...base, status: 'waiting' });
    expect(await ctx.app.services.tasks.failOrphans()).toBe(2);
    ctx.app.services.dispatcher.kick();
    expect((await waitForTask(admin, p, orphan)).status).toBe('error');
    expect((await waitForTask(admin, p, stuck)).status).toBe('error');
    expect((await taskLog(admin, p, orphan)).join()).toMatch(/server restarted/);
    expect((await waitForTask(admin, p, waiting)).status).toBe('success');
  });
});
