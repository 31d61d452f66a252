import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gitRepo } from '../../test/git-fixture.js';
import { createProject, engines, signedInUser, useTestApp } from '../../test/harness.js';
import { startHttpReceiver, type HttpReceiver } from '../../test/http-receiver.js';
import { runTask, setupTemplate } from '../../test/tasks.js';

describe.each(engines)('runner webhooks ($name)', (engine) => {
  const t = useTestApp(engine, { GANTRY_USE_REMOTE_RUNNER: 'true' });
  let receiver: HttpReceiver;
  beforeAll(async () => {
    receiver = await startHttpReceiver((path) => (path === '/broken' ? 500 : 200));
  });
  afterAll(async () => receiver.close());

  it('calls the webhook of each active runner that could take a newly waiting task, and logs failures without the URL', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const p = await createProject(admin);
    const other = await createProject(admin);
    const runner = async (url: string, body: Record<string, unknown>) => (await admin.post(url, { max_parallel_tasks: 1, ...body })).json<{ id: number }>();
    const wake = await runner('/api/runners', { name: 'wake', tag: 'linux', webhook: `${receiver.url}/wake?token=hook-canary` });
    const own = await runner(`/api/project/${p}/runners`, { name: 'own', tag: 'linux', webhook: `${receiver.url}/own` });
    await runner(`/api/project/${other}/runners`, { name: 'elsewhere', tag: 'linux', webhook: `${receiver.url}/elsewhere` });
    await runner('/api/runners', { name: 'windows', tag: 'windows', webhook: `${receiver.url}/windows` });
    await runner('/api/runners', { name: 'off', tag: 'linux', webhook: `${receiver.url}/off`, active: false });
    const broken = await runner('/api/runners', { name: 'broken', tag: 'linux', webhook: `${receiver.url}/broken` });

    const s = await setupTemplate(admin, p, gitRepo({ 'a.sh': 'echo a\n' }), { app: 'bash', playbook: 'a.sh', runner_tag: 'linux' });
    const id = await runTask(admin, p, { template_id: s.templateId });

    await expect.poll(() => receiver.requests.map((r) => r.path.split('?')[0]).sort(), { timeout: 10_000 }).toEqual(['/broken', '/own', '/wake']);
    const sent = receiver.requests.find((r) => r.path.startsWith('/wake'))!;
    expect(sent.method).toBe('POST');
    expect(sent.json).toEqual({ event: 'task_waiting', runner_id: wake.id, project_id: p, template_id: s.templateId, task_id: id });
    expect(receiver.requests.find((r) => r.path === '/own')!.json).toMatchObject({ runner_id: own.id, task_id: id });

    const events = async () => (await admin.get(`/api/project/${p}/events/last`)).json<Array<{ description: string }>>();
    await expect.poll(async () => (await events()).some((e) => e.description === `Webhook of runner #${broken.id} failed: HTTP 500`), { timeout: 10_000 }).toBe(true);
    expect(JSON.stringify(await events())).not.toContain('hook-canary');
  });
});
