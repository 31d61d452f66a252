import { PROJECT_ROLES, type ProjectRole } from '@gantry/contracts';
import { describe, expect, it } from 'vitest';
import { addMember, createProject, engines, signedInUser, uniq, useTestApp, type Caller } from '../../test/harness.js';

describe.each(engines)('projects ($name)', (engine) => {
  const t = useTestApp(engine);

  it('makes the creator the owner, and lists only member projects to non-admins', async () => {
    const ctx = t();
    const admin = await signedInUser(ctx, { admin: true });
    const res = await admin.post('/api/projects', {
      name: 'Alpha',
      alert: true,
      alert_chat: ' 123 ',
      max_parallel_tasks: '',
    });
    expect(res.statusCode).toBe(201);
    const p = res.json();
    expect(p).toMatchObject({
      name: 'Alpha',
      type: '',
      alert: true,
      alert_chat: '123',
      max_parallel_tasks: 0,
      role: 'owner',
    });
    expect((await admin.get(`/api/project/${p.id}/role`)).json()).toEqual({ role: 'owner', permissions: 15 });

    const outsider = await signedInUser(ctx);
    expect((await outsider.get('/api/projects')).json().map((x: { id: number }) => x.id)).not.toContain(p.id);
    await addMember(ctx, p.id, outsider.id, 'guest');
    const listed = (await outsider.get('/api/projects')).json();
    expect(listed.find((x: { id: number }) => x.id === p.id)).toMatchObject({ name: 'Alpha', role: 'guest' });
  });

  it.each([
    [{ name: '' }, 'Project name is required'],
    [{}, 'Project name is required'],
    [{ name: 'x', max_parallel_tasks: -1 }, 'Must be 0 or greater'],
    [{ name: 'x', max_parallel_tasks: 1.5 }, 'Must be an integer'],
    [{ name: 'x', max_parallel_tasks: 'abc' }, 'Must be an integer'],
  ])('rejects %o with "%s"', async (body, message) => {
    const admin = await signedInUser(t(), { admin: true });
    const before = (await admin.get('/api/projects')).json().length;
    const res = await admin.post('/api/projects', body);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: message, code: expect.any(String), field: expect.any(String) });
    expect((await admin.get('/api/projects')).json()).toHaveLength(before);
  });

  it('updates settings and validates them the same way', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const id = await createProject(admin);
    const put = await admin.put(`/api/project/${id}`, {
      name: 'Renamed',
      alert: true,
      alert_chat: 'chat-1',
      max_parallel_tasks: 3,
    });
    expect(put.statusCode).toBe(204);
    expect((await admin.get(`/api/project/${id}`)).json()).toMatchObject({
      name: 'Renamed',
      alert: true,
      alert_chat: 'chat-1',
      max_parallel_tasks: 3,
    });
    const bad = await admin.put(`/api/project/${id}`, { name: '', max_parallel_tasks: 1 });
    expect(bad.json()).toEqual({
      error: 'Project name is required',
      code: 'field_required',
      label_key: 'project_name',
      field: 'name',
    });
    expect((await admin.get(`/api/project/${id}`)).json().name).toBe('Renamed');
  });

  it('stores "managed by code", keeps it through PUTs that leave it out, and only updaters set it', async () => {
    const ctx = t();
    const admin = await signedInUser(ctx, { admin: true });
    const id = await createProject(admin);
    expect((await admin.get(`/api/project/${id}`)).json().managed_by_code).toBe(false);

    expect((await admin.put(`/api/project/${id}`, { name: 'Coded', managed_by_code: true })).statusCode).toBe(204);
    expect((await admin.get(`/api/project/${id}`)).json()).toMatchObject({ name: 'Coded', managed_by_code: true });
    expect((await admin.get('/api/projects')).json().find((p: { id: number }) => p.id === id).managed_by_code).toBe(
      true,
    );

    // A Semaphore client knows nothing of the flag: its PUT keeps it.
    expect(
      (await admin.put(`/api/project/${id}`, { name: 'Renamed', alert: false, max_parallel_tasks: 2 })).statusCode,
    ).toBe(204);
    expect((await admin.get(`/api/project/${id}`)).json()).toMatchObject({ name: 'Renamed', managed_by_code: true });

    const guest = await signedInUser(ctx);
    await addMember(ctx, id, guest.id, 'guest');
    expect((await guest.put(`/api/project/${id}`, { name: 'Renamed', managed_by_code: false })).statusCode).toBe(403);
    expect((await guest.get(`/api/project/${id}`)).json().managed_by_code).toBe(true);

    const bad = await admin.put(`/api/project/${id}`, { name: 'Renamed', managed_by_code: 'yes' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ error: expect.any(String), code: expect.any(String), field: 'managed_by_code' });

    expect((await admin.put(`/api/project/${id}`, { name: 'Renamed', managed_by_code: false })).statusCode).toBe(204);
    expect((await admin.get(`/api/project/${id}`)).json().managed_by_code).toBe(false);
  });

  it('only lets non-admins create projects when configured', async () => {
    const u = await signedInUser(t());
    const res = await u.post('/api/projects', { name: 'Mine' });
    expect(res.statusCode).toBe(403);
    expect((await u.get('/api/user')).json().can_create_project).toBe(false);
  });

  describe('permissions by role', () => {
    // Expected status per route for each role; admins who are not members can do everything.
    const routes = [
      {
        name: 'GET project',
        call: (c: Caller, id: number) => c.get(`/api/project/${id}`),
        allowed: ['owner', 'manager', 'task_runner', 'guest'],
      },
      {
        name: 'GET role',
        call: (c: Caller, id: number) => c.get(`/api/project/${id}/role`),
        allowed: ['owner', 'manager', 'task_runner', 'guest'],
      },
      {
        name: 'PUT project',
        call: (c: Caller, id: number) => c.put(`/api/project/${id}`, { name: uniq('n') }),
        allowed: ['owner'],
      },
      { name: 'DELETE project', call: (c: Caller, id: number) => c.del(`/api/project/${id}`), allowed: ['owner'] },
    ];
    const expectedBits: Record<ProjectRole, number> = { owner: 15, manager: 5, task_runner: 1, guest: 0 };

    for (const role of PROJECT_ROLES) {
      it(`${role}: role bits ${expectedBits[role]} and each route allowed or 403`, async () => {
        const ctx = t();
        const admin = await signedInUser(ctx, { admin: true });
        const member = await signedInUser(ctx);
        for (const route of routes) {
          const id = await createProject(admin);
          await addMember(ctx, id, member.id, role);
          if (route.name === 'GET role') {
            expect((await route.call(member, id)).json()).toEqual({ role, permissions: expectedBits[role] });
          }
          const res = await route.call(member, id);
          const allowed = route.allowed.includes(role);
          expect([route.name, res.statusCode]).toEqual([
            route.name,
            allowed ? (route.name.startsWith('GET') ? 200 : 204) : 403,
          ]);
          if (!allowed) expect(res.json()).toEqual({ error: 'Forbidden', code: 'forbidden' });
        }
      });
    }

    it('a non-member gets 404 for everything under the project, even though it exists', async () => {
      const ctx = t();
      const admin = await signedInUser(ctx, { admin: true });
      const stranger = await signedInUser(ctx);
      const id = await createProject(admin);
      for (const route of routes) {
        const res = await route.call(stranger, id);
        expect([route.name, res.statusCode, res.json()]).toEqual([
          route.name,
          404,
          { error: 'Project not found', code: 'project_not_found' },
        ]);
      }
      expect((await admin.get(`/api/project/${id}`)).statusCode).toBe(200);
    });

    it('an admin who is not a member can do everything', async () => {
      const ctx = t();
      const owner = await signedInUser(ctx, { admin: true });
      const otherAdmin = await signedInUser(ctx, { admin: true });
      for (const route of routes) {
        const id = await createProject(owner);
        const res = await route.call(otherAdmin, id);
        expect(res.statusCode).toBeLessThan(300);
      }
      const id = await createProject(owner);
      expect((await otherAdmin.get(`/api/project/${id}/role`)).json()).toEqual({ role: '', permissions: 15 });
    });
  });

  it('deleting a project removes it and its memberships', async () => {
    const ctx = t();
    const admin = await signedInUser(ctx, { admin: true });
    const id = await createProject(admin);
    expect((await admin.del(`/api/project/${id}`)).statusCode).toBe(204);
    expect((await admin.get(`/api/project/${id}`)).statusCode).toBe(404);
    const members = await ctx.db.db.selectFrom('project_user').selectAll().where('project_id', '=', id).execute();
    expect(members).toEqual([]);
  });
});

describe('projects with GANTRY_NON_ADMIN_CAN_CREATE_PROJECT', () => {
  const t = useTestApp(engines[0]!, { GANTRY_NON_ADMIN_CAN_CREATE_PROJECT: 'true' });
  it('lets a non-admin create a project and become its owner', async () => {
    const u = await signedInUser(t());
    expect((await u.get('/api/user')).json().can_create_project).toBe(true);
    const res = await u.post('/api/projects', { name: 'Mine' });
    expect(res.statusCode).toBe(201);
    expect((await u.get(`/api/project/${res.json().id}/role`)).json()).toEqual({ role: 'owner', permissions: 15 });
  });
});
