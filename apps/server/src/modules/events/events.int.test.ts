import { describe, expect, it } from 'vitest';
import { createProject, engines, signedInUser, useTestApp } from '../../test/harness.js';
import { createKey } from '../../test/resources.js';

describe.each(engines)('activity events ($name)', (engine) => {
  const t = useTestApp(engine);

  it('records every create, update and delete with its author, newest first', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const p = await createProject(admin, 'Evented');
    const key = await createKey(admin, p, 'none', 'k1');
    await admin.put(`/api/project/${p}/keys/${key}`, { name: 'k2', type: 'none' });
    await admin.del(`/api/project/${p}/keys/${key}`);
    const env = (await admin.post(`/api/project/${p}/environment`, { name: 'vars' })).json().id;
    await admin.del(`/api/project/${p}/environment/${env}`);
    const events = (await admin.get(`/api/project/${p}/events/last`)).json();
    expect(events.map((e: { description: string }) => e.description)).toEqual([
      'Variable group vars deleted',
      'Variable group vars created',
      'Key k2 deleted',
      'Key k2 updated',
      'Key k1 created',
      'Project Evented created',
    ]);
    expect(events[0]).toMatchObject({ project_id: p, user_id: admin.id, username: admin.username, object_type: 'environment', object_id: env });
  });

  it('shows events only to members', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const stranger = await signedInUser(t());
    const p = await createProject(admin);
    expect((await stranger.get(`/api/project/${p}/events/last`)).statusCode).toBe(404);
  });
});
