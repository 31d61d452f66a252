import fs from 'node:fs';
import { environmentSchema, keySchema } from '@gantry/contracts';
import { describe, expect, it } from 'vitest';
import { gitRepo } from '../test/git-fixture.js';
import { addMember, createProject, engines, signedInUser, useTestApp, type Caller } from '../test/harness.js';
import { createKey } from '../test/resources.js';
import { runTask, setupTemplate, waitForTask } from '../test/tasks.js';
import { scriptClient } from './script-client.js';
import { waitFor } from '../test/wait.js';
import { VERSION } from '../version.js';

// Answers that clients with fixed types (generated Semaphore clients, Terraform providers) map
// field by field: the fields Semaphore's Go models carry, with Semaphore's omissions.

describe.each(engines)('Semaphore clients: response shapes ($name)', (engine) => {
  const t = useTestApp(engine);

  it('variable groups carry `password: null`, in the creation answer, the list and the item', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const api = await scriptClient(t(), admin);
    const p = await createProject(admin);
    const created = await api.send('POST', `/api/project/${p}/environment`, {
      project_id: p,
      name: 'vars',
      json: '{"a": 1}',
      env: '{}',
      secrets: [{ name: 'TOKEN', secret: 'hidden-value', type: 'env', operation: 'create' }],
    });
    expect(created.statusCode, created.body).toBe(201);
    const id = created.json().id as number;
    const one = (await api.send('GET', `/api/project/${p}/environment/${id}`)).json();
    expect(one).toEqual({
      id,
      project_id: p,
      name: 'vars',
      json: '{"a": 1}',
      env: '{}',
      password: null,
      secrets: [{ id: expect.any(Number), name: 'TOKEN', type: 'env' }],
    });
    expect(created.json()).toEqual(one);
    expect((await api.send('GET', `/api/project/${p}/environment`)).json()).toEqual([one]);
    expect(environmentSchema.parse(one)).toEqual(one);
    expect(JSON.stringify(one)).not.toContain('hidden-value');
  });

  it('API tokens list `user_id` and the id Semaphore lists (the first 8 characters), which deletes it', async () => {
    const user = await signedInUser(t());
    const api = await scriptClient(t(), user);
    const list = await api.send('GET', '/api/user/tokens');
    expect(list.json()).toEqual([
      {
        id: api.token.slice(0, 8),
        token_id: api.token.slice(0, 8),
        user_id: user.id,
        created: expect.any(String),
        expired: false,
        expires: null,
      },
    ]);
    expect(list.body).not.toContain(api.token);
    // The creation answer carries the whole value (once), with the owner too.
    const created = await api.send('POST', '/api/user/tokens');
    expect(created.json()).toMatchObject({ id: expect.stringMatching(/^.{44}$/), user_id: user.id, expired: false });
    // The listed id is enough to expire the token, as Semaphore's console does with it.
    const second = created.json().token_id as string;
    expect((await user.del(`/api/user/tokens/${second}`)).statusCode).toBe(204);
    expect(
      (await api.send('GET', '/api/user/tokens')).json().find((x: { id: string }) => x.id === second),
    ).toMatchObject({
      expired: true,
    });
  });

  it('/api/info reports the real version: the package version with the git commit it runs from', async () => {
    const user = await signedInUser(t());
    const api = await scriptClient(t(), user);
    const root = new URL('../../../../', import.meta.url);
    const pkg = JSON.parse(fs.readFileSync(new URL('package.json', root), 'utf8')) as { version: string };
    // From a checkout (as here) the commit is part of it; an unpacked release has the package version alone.
    const commit = fs.existsSync(new URL('.git', root)) ? '-[0-9a-f]{7}' : '';
    // Semaphore's console reads it for its about box and its runner set-up snippet.
    for (const res of [await user.get('/api/info'), await api.send('GET', '/api/info')]) {
      expect(res.statusCode).toBe(200);
      expect(res.json().version).toBe(VERSION);
    }
    expect(VERSION).toMatch(new RegExp(`^${pkg.version.replace(/\./g, '\\.')}${commit}$`));
    expect(VERSION).not.toMatch(/^0\.0\.0|dev|unknown/);
  });

  it('keys leave `empty` out unless no material is stored (Semaphore: `json:"empty,omitempty"`)', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const api = await scriptClient(t(), admin);
    const p = await createProject(admin);
    const lp = await createKey(admin, p, 'login_password', 'db');
    const none = await createKey(admin, p, 'none', 'no key');
    const bare = await createKey(admin, p, 'login_password', 'restored');
    // As a restored backup leaves a key: its type, no material (to be filled in).
    await t().db.db.updateTable('access_key').set({ secret: null }).where('id', '=', bare).execute();
    const keys = (await api.send('GET', `/api/project/${p}/keys`)).json() as Array<Record<string, unknown>>;
    const byId = (id: number) => keys.find((k) => k.id === id)!;
    expect(byId(lp)).not.toHaveProperty('empty');
    expect(byId(none)).not.toHaveProperty('empty');
    expect(byId(bare)).toMatchObject({ empty: true });
    for (const k of keys) expect(keySchema.parse(k)).toEqual(k);
    expect((await api.send('GET', `/api/project/${p}/keys/${lp}`)).json()).not.toHaveProperty('empty');
  });
});

describe.each(engines)('Semaphore clients: stopping tasks ($name)', (engine) => {
  const t = useTestApp(engine);

  /** A project running one task at a time, with a template whose tasks wait a minute. */
  const waitingProject = async (admin: Caller) => {
    const p = (await admin.post('/api/projects', { name: 'one at a time', max_parallel_tasks: 1 })).json().id as number;
    const s = await setupTemplate(admin, p, gitRepo({ 'wait.sh': 'echo waiting; sleep 60\n' }), {
      app: 'bash',
      playbook: 'wait.sh',
    });
    return { p, s };
  };

  it('answers 204 to stopping a finished task and changes nothing', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const api = await scriptClient(t(), admin);
    const p = await createProject(admin);
    const s = await setupTemplate(admin, p, gitRepo({ 'ok.sh': 'echo done\n' }), { app: 'bash', playbook: 'ok.sh' });
    const id = await runTask(admin, p, { template_id: s.templateId });
    const before = await waitForTask(admin, p, id);
    expect(before.status).toBe('success');
    // The end's own event is written just after the final status: count from there.
    const finished = `Task #${id} finished: success`;
    const events = await waitFor('the task\'s end in the events', async () => {
      const list = (await admin.get(`/api/project/${p}/events`)).json() as Array<{ description: string }>;
      return list.some((e) => e.description === finished) && list.length;
    });
    for (const body of [undefined, {}, { force: true }]) {
      const res = await api.send('POST', `/api/project/${p}/tasks/${id}/stop`, body);
      expect([res.statusCode, res.body]).toEqual([204, '']);
    }
    expect((await admin.get(`/api/project/${p}/tasks/${id}`)).json()).toEqual(before);
    expect((await admin.get(`/api/project/${p}/events`)).json()).toHaveLength(events);
    // Still a 404 for a task that is not there.
    expect((await api.send('POST', `/api/project/${p}/tasks/999999/stop`)).statusCode).toBe(404);
  });

  it('POST …/templates/{id}/stop_all_tasks stops every running and waiting task of that template only', async () => {
    const ctx = t();
    const admin = await signedInUser(ctx, { admin: true });
    const runner = await signedInUser(ctx);
    const guest = await signedInUser(ctx);
    const { p, s } = await waitingProject(admin);
    await addMember(ctx, p, runner.id, 'task_runner');
    await addMember(ctx, p, guest.id, 'guest');
    const other = await setupTemplate(admin, p, gitRepo({ 'ok.sh': 'echo other\n' }), {
      app: 'bash',
      playbook: 'ok.sh',
    });
    const running = await runTask(admin, p, { template_id: s.templateId });
    await waitForTask(admin, p, running, ['running']);
    const queued = await runTask(admin, p, { template_id: s.templateId });
    const otherQueued = await runTask(admin, p, { template_id: other.templateId });
    const url = `/api/project/${p}/templates/${s.templateId}/stop_all_tasks`;

    // Stopping needs the permission to run tasks, like stopping one; another project's id is unknown.
    const asGuest = await scriptClient(ctx, guest);
    expect((await asGuest.send('POST', url)).statusCode).toBe(403);
    const elsewhere = await createProject(admin);
    expect(
      (
        await (
          await scriptClient(ctx, admin)
        ).send('POST', `/api/project/${elsewhere}/templates/${s.templateId}/stop_all_tasks`)
      ).statusCode,
    ).toBe(404);
    expect((await admin.get(`/api/project/${p}/tasks/${queued}`)).json().status).toBe('waiting');

    const asRunner = await scriptClient(ctx, runner);
    const res = await asRunner.send('POST', url);
    expect([res.statusCode, res.body]).toEqual([204, '']);
    expect((await waitForTask(admin, p, queued)).status).toBe('stopped');
    expect((await waitForTask(admin, p, running)).status).toBe('stopped');
    // The other template's task was not touched: it runs once the slot is free.
    expect((await waitForTask(admin, p, otherQueued)).status).toBe('success');
    // Nothing left to stop: still 204.
    expect((await asRunner.send('POST', url)).statusCode).toBe(204);
  }, 60_000);
});
