import type { ProjectRole } from '@gantry/contracts';
import { describe, expect, it } from 'vitest';
import { addMember, createProject, engines, signedInUser, useTestApp, type Caller } from '../../test/harness.js';

describe.each(engines)('team ($name)', (engine) => {
  const t = useTestApp(engine);

  it('lists members sorted by name, and lets an owner add, change and remove', async () => {
    const ctx = t();
    const owner = await signedInUser(ctx, { admin: false });
    const admin = await signedInUser(ctx, { admin: true });
    const p = await createProject(admin);
    await addMember(ctx, p, owner.id, 'owner');
    const bob = await signedInUser(ctx);
    expect((await owner.post(`/api/project/${p}/users`, { user_id: bob.id, role: 'guest' })).statusCode).toBe(204);
    const list = (await owner.get(`/api/project/${p}/users?sort=name&order=asc`)).json();
    expect(list.map((m: { name: string }) => m.name)).toEqual([...list.map((m: { name: string }) => m.name)].sort());
    expect(list.find((m: { id: number }) => m.id === bob.id)).toMatchObject({ username: bob.username, role: 'guest' });
    expect((await bob.get(`/api/project/${p}/role`)).json()).toEqual({ role: 'guest', permissions: 0 });

    expect((await owner.put(`/api/project/${p}/users/${bob.id}`, { role: 'manager' })).statusCode).toBe(204);
    expect((await bob.get(`/api/project/${p}/role`)).json()).toEqual({ role: 'manager', permissions: 5 });
    expect((await owner.post(`/api/project/${p}/users`, { user_id: bob.id, role: 'guest' })).statusCode).toBe(409);
    expect((await owner.del(`/api/project/${p}/users/${bob.id}`)).statusCode).toBe(204);
    expect((await bob.get(`/api/project/${p}/role`)).statusCode).toBe(404);
  });

  it.each([
    [{ role: 'guest' }, 'User is required'],
    [{ user_id: 1 }, 'Role is required'],
    [{ user_id: 1, role: 'king' }, 'Role is required'],
  ])('validates %o with "%s"', async (body, message) => {
    const admin = await signedInUser(t(), { admin: true });
    const p = await createProject(admin);
    const res = await admin.post(`/api/project/${p}/users`, body);
    expect(res.json()).toMatchObject({ error: message, code: expect.any(String), field: expect.any(String) });
  });

  it('only manageProjectUsers changes the team; others read it', async () => {
    const ctx = t();
    const admin = await signedInUser(ctx, { admin: true });
    const target = await signedInUser(ctx);
    for (const role of ['manager', 'task_runner', 'guest'] as ProjectRole[]) {
      const p = await createProject(admin);
      const m = await signedInUser(ctx);
      await addMember(ctx, p, m.id, role);
      expect((await m.get(`/api/project/${p}/users`)).statusCode).toBe(200);
      expect((await m.post(`/api/project/${p}/users`, { user_id: target.id, role: 'guest' })).statusCode).toBe(403);
      expect((await m.put(`/api/project/${p}/users/${admin.id}`, { role: 'guest' })).statusCode).toBe(403);
      expect((await m.del(`/api/project/${p}/users/${admin.id}`)).statusCode).toBe(403);
    }
  });

  it('keeps the last owner: no demotion, no removal, no leaving; a second owner unlocks it', async () => {
    const ctx = t();
    const admin = await signedInUser(ctx, { admin: true });
    const p = await createProject(admin);
    expect((await admin.put(`/api/project/${p}/users/${admin.id}`, { role: 'manager' })).statusCode).toBe(409);
    expect((await admin.del(`/api/project/${p}/users/${admin.id}`)).statusCode).toBe(409);
    const leave = await admin.del(`/api/project/${p}/me`);
    expect(leave.statusCode).toBe(409);
    expect(leave.json()).toEqual({ error: 'The project must keep at least one owner', code: 'last_owner' });

    const second = await signedInUser(ctx);
    await admin.post(`/api/project/${p}/users`, { user_id: second.id, role: 'owner' });
    expect((await admin.del(`/api/project/${p}/me`)).statusCode).toBe(204);
    expect((await second.del(`/api/project/${p}/me`)).statusCode).toBe(409);
  });

  it('lets a member leave, and says so in the activity', async () => {
    const ctx = t();
    const admin = await signedInUser(ctx, { admin: true });
    const p = await createProject(admin);
    const m: Caller = await signedInUser(ctx);
    await admin.post(`/api/project/${p}/users`, { user_id: m.id, role: 'task_runner' });
    expect((await m.del(`/api/project/${p}/me`)).statusCode).toBe(204);
    expect((await m.get(`/api/project/${p}`)).statusCode).toBe(404);
    const events = (await admin.get(`/api/project/${p}/events/last`)).json().map((e: { description: string }) => e.description);
    expect(events).toContain(`User ${m.username} left the project`);
    expect(events).toContain(`User ${m.username} joined the project as task_runner`);
  });

  it('only an owner or admin grants the owner role', async () => {
    const ctx = t();
    const admin = await signedInUser(ctx, { admin: true });
    const p = await createProject(admin);
    const owner = await signedInUser(ctx);
    await addMember(ctx, p, owner.id, 'owner');
    const x = await signedInUser(ctx);
    expect((await owner.post(`/api/project/${p}/users`, { user_id: x.id, role: 'owner' })).statusCode).toBe(204);
  });
});
