import { describe, expect, it } from 'vitest';
import { engines, signedInUser, useTestApp } from '../test/harness.js';
import { scriptClient } from './script-client.js';

describe.each(engines)('compat: apps as Semaphore clients manage them ($name)', (engine) => {
  const t = useTestApp(engine);

  it('reads one app (admins only), 404 for an unknown id', async () => {
    const admin = await scriptClient(t(), await signedInUser(t(), { admin: true }));
    const user = await scriptClient(t(), await signedInUser(t()));
    const bash = await admin.send('GET', '/api/apps/bash');
    expect(bash.statusCode).toBe(200);
    expect(bash.json()).toEqual({
      id: 'bash',
      title: 'Bash Script',
      icon: expect.any(String),
      path: 'bash',
      priority: expect.any(Number),
      args: [],
      active: true,
      builtin: true,
      found: true,
    });
    expect((await admin.send('GET', '/api/apps/bash/')).json()).toEqual(bash.json());
    const missing = await admin.send('GET', '/api/apps/no-such-app');
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toEqual({ error: 'App not found', code: 'app_not_found' });
    const refused = await user.send('GET', '/api/apps/bash');
    expect(refused.statusCode).toBe(403);
  });

  it('updates with PUT (204, 404 when missing) and upserts with POST (204)', async () => {
    const admin = await scriptClient(t(), await signedInUser(t(), { admin: true }));
    const user = await scriptClient(t(), await signedInUser(t()));
    // Semaphore's console sends the whole app, colours included.
    const body = {
      title: 'Python 3',
      icon: 'python',
      color: 'blue',
      dark_color: 'white',
      path: 'python3',
      priority: 40,
      args: ['-X', 'dev'],
      active: true,
    };
    const put = await admin.send('PUT', '/api/apps/python', body);
    expect(put.statusCode).toBe(204);
    expect(put.body).toBe('');
    expect((await admin.send('GET', '/api/apps/python')).json()).toMatchObject({
      id: 'python',
      title: 'Python 3',
      priority: 40,
      args: ['-X', 'dev'],
      active: true,
    });
    const putMissing = await admin.send('PUT', '/api/apps/not-there', body);
    expect(putMissing.statusCode).toBe(404);
    expect((await admin.send('GET', '/api/apps/not-there')).statusCode).toBe(404);

    const created = await admin.send('POST', '/api/apps/my-tool', {
      ...body,
      title: 'My tool',
      path: '/bin/sh',
      active: false,
    });
    expect(created.statusCode).toBe(204);
    expect((await admin.send('GET', '/api/apps/my-tool')).json()).toEqual({
      id: 'my-tool',
      title: 'My tool',
      icon: 'python',
      path: '/bin/sh',
      priority: 40,
      args: ['-X', 'dev'],
      active: false,
      builtin: false,
      found: true,
    });
    const updated = await admin.send('POST', '/api/apps/my-tool', {
      title: 'My tool 2',
      path: '/bin/sh',
      active: true,
    });
    expect(updated.statusCode).toBe(204);
    expect((await admin.send('GET', '/api/apps/my-tool')).json()).toMatchObject({
      title: 'My tool 2',
      priority: 0,
      args: [],
      active: true,
    });
    expect(
      (await admin.send('GET', '/api/apps')).json().filter((a: { id: string }) => a.id === 'my-tool'),
    ).toHaveLength(1);

    const badId = await admin.send('POST', '/api/apps/Bad_ID', body);
    expect(badId.statusCode).toBe(400);
    expect(badId.json()).toEqual({
      error: 'ID must be 2 to 31 lowercase letters, digits, - or _, starting with a letter',
      code: 'app_id_invalid',
    });
    const badBody = await admin.send('POST', '/api/apps/other-tool', { ...body, path: '../sh' });
    expect(badBody.statusCode).toBe(400);
    expect(badBody.json()).toEqual({ error: 'Path must be an executable name or an absolute path', code: 'app_path_invalid', field: 'path' });
    expect((await user.send('POST', '/api/apps/user-tool', body)).statusCode).toBe(403);
    expect((await user.send('PUT', '/api/apps/python', body)).statusCode).toBe(403);
    const ids = (await admin.send('GET', '/api/apps')).json().map((a: { id: string }) => a.id);
    expect(ids).not.toContain('other-tool');
    expect(ids).not.toContain('user-tool');
    expect((await admin.send('DELETE', '/api/apps/my-tool')).statusCode).toBe(204);
  });
});
