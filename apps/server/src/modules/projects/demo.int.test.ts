import { describe, expect, it } from 'vitest';
import { engines, signedInUser, useTestApp } from '../../test/harness.js';
import { runTask, taskLog, waitForTask } from '../../test/tasks.js';

describe.each(engines)('demo project ($name)', (engine) => {
  const t = useTestApp(engine);

  it('comes with resources and two templates that really run', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const res = await admin.post('/api/projects', { name: 'Demo', demo: true });
    expect(res.statusCode).toBe(201);
    const p = res.json().id;
    const templates = (await admin.get(`/api/project/${p}/templates`)).json();
    expect(templates.map((x: { name: string }) => x.name)).toEqual(['Ping localhost (Ansible)', 'Say hello (Bash)']);
    for (const tpl of templates) {
      const id = await runTask(admin, p, { template_id: tpl.id });
      const task = await waitForTask(admin, p, id);
      const log = (await taskLog(admin, p, id)).join('\n');
      expect(task.status, log).toBe('success');
      expect(log).toMatch(tpl.app === 'bash' ? /greeting: from the demo/ : /Hello from the demo from localhost/);
    }
    expect((await admin.get(`/api/project/${p}/keys`)).json()).toHaveLength(1);
    expect((await admin.get(`/api/project/${p}/inventory`)).json()[0]).toMatchObject({ name: 'Localhost', type: 'static' });
  });
});
