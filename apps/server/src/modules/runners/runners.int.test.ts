import { describe, expect, it } from 'vitest';
import { addMember, createProject, engines, signedInUser, useTestApp } from '../../test/harness.js';

describe.each(engines)('runners ($name)', (engine) => {
  const t = useTestApp(engine);

  it('admin creates a global runner: token and private key once, stored hashed, never listed', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const res = await admin.post('/api/runners', { name: 'build-box', tag: '', webhook: '', max_parallel_tasks: 2 });
    expect(res.statusCode).toBe(201);
    const created = res.json();
    expect(created).toMatchObject({ name: 'build-box', project_id: null, tag: '', max_parallel_tasks: 2, active: true, touched: null, cleaning_requested: false });
    expect(created.token).toMatch(/^[a-z0-9]{48}$/);
    expect(created.private_key).toContain('BEGIN PRIVATE KEY');
    const row = await t().db.db.selectFrom('runner').selectAll().where('id', '=', created.id).executeTakeFirstOrThrow();
    expect(row.token_hash).not.toBe(created.token);
    expect(row.token_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(row)).not.toContain(created.token);
    expect(row.public_key).toContain('BEGIN PUBLIC KEY');
    expect(JSON.stringify(row)).not.toContain('PRIVATE KEY');
    const list = (await admin.get('/api/runners')).json();
    const listed = list.find((r: { id: number }) => r.id === created.id);
    expect(Object.keys(listed).sort()).toEqual(['active', 'cleaning_requested', 'created', 'id', 'max_parallel_tasks', 'name', 'project_id', 'tag', 'touched', 'webhook']);
    expect(JSON.stringify((await admin.get(`/api/runners/${created.id}`)).json())).not.toContain(created.token);
  });

  it('updates, toggles, asks for cache clearing and deletes', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const { id } = (await admin.post('/api/runners', { name: 'r1' })).json();
    expect((await admin.put(`/api/runners/${id}`, { name: 'r1b', tag: 'linux', webhook: 'https://hooks.example.com/x', max_parallel_tasks: 0, active: true })).statusCode).toBe(204);
    expect((await admin.post(`/api/runners/${id}/active`, { active: false })).statusCode).toBe(204);
    expect((await admin.del(`/api/runners/${id}/cache`)).statusCode).toBe(204);
    expect((await admin.get(`/api/runners/${id}`)).json()).toMatchObject({ name: 'r1b', tag: 'linux', active: false, cleaning_requested: true, webhook: 'https://hooks.example.com/x' });
    expect((await admin.post('/api/runners', { name: '  ' })).json().error).toBe('Name is required');
    expect((await admin.del(`/api/runners/${id}`)).statusCode).toBe(204);
    expect((await admin.get(`/api/runners/${id}`)).statusCode).toBe(404);
  });

  it('global runners are for admins; project runners need updateProject and a tag', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const owner = await signedInUser(t());
    const manager = await signedInUser(t());
    const p = await createProject(admin);
    await addMember(t(), p, owner.id, 'owner');
    await addMember(t(), p, manager.id, 'manager');
    expect((await owner.get('/api/runners')).statusCode).toBe(403);
    expect((await owner.post('/api/runners', { name: 'x' })).statusCode).toBe(403);
    expect((await owner.post(`/api/project/${p}/runners`, { name: 'p1' })).json().error).toBe('Tag is required');
    const created = await owner.post(`/api/project/${p}/runners`, { name: 'p1', tag: 'gpu' });
    expect(created.statusCode).toBe(201);
    expect(created.json()).toMatchObject({ project_id: p, tag: 'gpu' });
    expect(created.json().token).toBeTruthy();
    expect((await manager.get(`/api/project/${p}/runners`)).statusCode).toBe(403);
    expect((await owner.get(`/api/project/${p}/runners`)).json().map((r: { name: string }) => r.name)).toEqual(['p1']);
    // Another project's runner is not reachable through this project.
    const other = await createProject(admin);
    await addMember(t(), other, owner.id, 'owner');
    expect((await owner.get(`/api/project/${other}/runners/${created.json().id}`)).statusCode).toBe(404);
    // The admin sees every runner.
    expect((await admin.get('/api/runners')).json().some((r: { id: number }) => r.id === created.json().id)).toBe(true);
    expect((await admin.get('/api/info')).json().premium_features).toEqual({ project_runners: true });
  });

  it('the protocol takes runner tokens only: bad token 401, a user session or API token is refused', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const { token } = (await admin.post('/api/runners', { name: 'auth' })).json();
    const poll = (headers: Record<string, string>, cookies: Record<string, string> = {}) =>
      t().app.inject({ method: 'POST', url: '/api/internal/runners/poll', headers, cookies, payload: {} });
    expect((await poll({})).statusCode).toBe(401);
    expect((await poll({ authorization: 'Bearer nope' })).statusCode).toBe(401);
    expect((await poll({ 'x-gantry-request': '1' }, { gantry_session: admin.cookie })).statusCode).toBe(401);
    const apiToken = (await admin.post('/api/user/tokens')).json();
    expect((await poll({ authorization: `Bearer ${apiToken.id}` })).statusCode).toBe(401);
    const ok = await poll({ authorization: `Bearer ${token}` });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toEqual({ jobs: [], control: [], clear_cache: false });
    // Log and status of a task the runner did not claim: 404.
    const r = await t().app.inject({ method: 'POST', url: '/api/internal/runners/tasks/999999/status', headers: { authorization: `Bearer ${token}` }, payload: { status: 'success' } });
    expect(r.statusCode).toBe(404);
  });
});
