import { taskSchema } from '@gantry/contracts';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { gitRepo } from '../test/git-fixture.js';
import { createProject, engines, signedInUser, useTestApp } from '../test/harness.js';
import { setupBuildAndDeploy, waitForTask } from '../test/tasks.js';
import { presentedResponse, responseSerializerCompiler } from './presented-response.js';

const route = (schema: z.ZodType) => ({ schema, method: 'GET', url: '/x', httpStatus: '200' });

describe('response serializer', () => {
  it('checks and strips an ordinary schema, answers a presented one as given', () => {
    const plain = z.object({ id: z.number() });
    expect(responseSerializerCompiler(route(plain))({ id: 1, secret: 's' })).toBe('{"id":1}');
    expect(() => responseSerializerCompiler(route(plain))({ id: 'one' })).toThrow();
    const presented = presentedResponse(z.object({ id: z.number() }));
    expect(responseSerializerCompiler(route(presented))({ id: 1 })).toBe('{"id":1}');
  });
});

// The task lists skip the check (presented-response.ts): what they answer must be exactly what
// the check would have let through, for every kind of row (a deploy with its build task, a task
// with run parameters, one that failed), on every engine.
describe.each(engines)('task lists answer their schema exactly ($name)', (engine) => {
  const t = useTestApp(engine);

  it('matches taskSchema with nothing to strip', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const p = await createProject(admin);
    const build = await setupBuildAndDeploy(
      admin,
      p,
      gitRepo({ 'build.sh': 'echo build\n', 'deploy.sh': 'exit 3\n' }),
      '1.0.0',
    );
    const built = await admin.post(`/api/project/${p}/tasks`, {
      template_id: build.templateId,
      message: 'a build',
      params: { debug: true, limit: ['web'] },
    });
    expect(built.statusCode, built.body).toBe(201);
    expect((await waitForTask(admin, p, built.json().id)).status).toBe('success');
    const deployed = await admin.post(`/api/project/${p}/tasks`, {
      template_id: build.deployTemplateId,
      build_task_id: built.json().id,
    });
    expect(deployed.statusCode, deployed.body).toBe(201);
    expect((await waitForTask(admin, p, deployed.json().id)).status).toBe('error');

    for (const url of [
      `/api/project/${p}/tasks/last`,
      `/api/project/${p}/tasks`,
      `/api/project/${p}/templates/${build.templateId}/tasks`,
    ]) {
      const res = await admin.get(url);
      expect(res.statusCode, res.body).toBe(200);
      const answered = res.json() as unknown[];
      expect(answered.length).toBeGreaterThan(0);
      const checked = JSON.parse(JSON.stringify(z.array(taskSchema).encode(answered as never)));
      expect(answered).toStrictEqual(checked);
    }
  });
});
