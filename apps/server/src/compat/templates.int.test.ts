import { taskSchema, templateSchema } from '@gantry/contracts';
import { describe, expect, it } from 'vitest';
import { gitRepo } from '../test/git-fixture.js';
import { createProject, engines, signedInUser, useTestApp } from '../test/harness.js';
import { setupBuildAndDeploy, waitForTask } from '../test/tasks.js';
import { apiToken, semaphoreRequest } from './tasks-client.js';

// Semaphore's console fills a template list's Version and "Last task by" columns from
// `last_task` (a full task row) and a deploy's version from the row's `build_task` (issue 11 item 6).

describe.each(engines)('Semaphore clients: templates and task rows ($name)', (engine) => {
  const t = useTestApp(engine);

  it('gives templates their full last task and task rows their build task', async () => {
    const ctx = t();
    const admin = await signedInUser(ctx, { admin: true });
    const token = await apiToken(admin);
    const p = await createProject(admin);
    const build = await setupBuildAndDeploy(
      admin,
      p,
      gitRepo({ 'build.sh': 'echo build\n', 'deploy.sh': 'echo deploy\n' }),
      '1.0.7',
    );
    const deployId = build.deployTemplateId;

    const listBefore = await semaphoreRequest(ctx, { token }, 'GET', `/api/project/${p}/templates`);
    expect(listBefore.json().map((x: { last_task: unknown }) => x.last_task)).toEqual([null, null]);

    const built = await semaphoreRequest(ctx, { caller: admin }, 'POST', `/api/project/${p}/tasks`, {
      template_id: build.templateId,
      message: 'first build',
      params: {},
    });
    const buildId = built.json().id as number;
    expect((await waitForTask(admin, p, buildId)).status).toBe('success');
    const deployed = await semaphoreRequest(ctx, { caller: admin }, 'POST', `/api/project/${p}/tasks`, {
      template_id: deployId,
      build_task_id: buildId,
      message: 'ship it',
      params: {},
    });
    expect(deployed.statusCode, deployed.body).toBe(201);
    const deployTaskId = deployed.json().id as number;
    expect((await waitForTask(admin, p, deployTaskId)).status).toBe('success');

    // Task rows: the deploy carries its build task (id, version, message), the build none.
    const rows = (await semaphoreRequest(ctx, { token }, 'GET', `/api/project/${p}/tasks/last?limit=10`)).json();
    const [deployRow, buildRow] = rows.map((r: unknown) => taskSchema.parse(r));
    expect(buildRow).toMatchObject({
      id: buildId,
      version: '1.0.7',
      message: 'first build',
      build_task: null,
      tpl_playbook: 'build.sh',
      tpl_alias: 'build',
      tpl_type: 'build',
      tpl_app: 'bash',
    });
    expect(deployRow).toMatchObject({
      id: deployTaskId,
      build_task_id: buildId,
      version: '1.0.7',
      tpl_type: 'deploy',
      tpl_playbook: 'deploy.sh',
    });
    expect(deployRow!.build_task).toMatchObject({
      id: buildId,
      template_id: build.templateId,
      version: '1.0.7',
      message: 'first build',
      status: 'success',
    });
    // The build task is the task's own fields only: no nested build task, no template names.
    expect(deployRow!.build_task).not.toHaveProperty('build_task');
    expect(deployRow!.build_task).not.toHaveProperty('tpl_alias');
    const one = (
      await semaphoreRequest(ctx, { caller: admin }, 'GET', `/api/project/${p}/tasks/${deployTaskId}`)
    ).json();
    expect(one).toEqual(rows[0]);
    const ofTemplate = (
      await semaphoreRequest(ctx, { token }, 'GET', `/api/project/${p}/templates/${deployId}/tasks/last`)
    ).json();
    expect(ofTemplate).toEqual([rows[0]]);

    // Templates: last_task is that same row, with the user's name for "Last task by".
    const list = (await semaphoreRequest(ctx, { token }, 'GET', `/api/project/${p}/templates`))
      .json()
      .map((x: unknown) => templateSchema.parse(x));
    const byId = new Map(list.map((x: { id: number }) => [x.id, x]));
    const deployTpl = byId.get(deployId) as { last_task_id: number; last_task: unknown };
    expect(deployTpl.last_task_id).toBe(deployTaskId);
    expect(deployTpl.last_task).toEqual(rows[0]);
    expect((byId.get(build.templateId) as { last_task: unknown }).last_task).toEqual(rows[1]);
    expect(rows[0].user_name).toBe(`Name ${admin.username}`);
    const single = (
      await semaphoreRequest(ctx, { caller: admin }, 'GET', `/api/project/${p}/templates/${deployId}`)
    ).json();
    expect(single.last_task).toEqual(rows[0]);
  });
});
