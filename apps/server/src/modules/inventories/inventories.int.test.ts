import { describe, expect, it } from 'vitest';
import { createProject, engines, signedInUser, useTestApp, type Caller } from '../../test/harness.js';
import { createKey, createRepository } from '../../test/resources.js';

describe.each(engines)('inventories ($name)', (engine) => {
  const t = useTestApp(engine);
  const setup = async (): Promise<{ admin: Caller; p: number; key: number; become: number }> => {
    const admin = await signedInUser(t(), { admin: true });
    const p = await createProject(admin);
    return { admin, p, key: await createKey(admin, p), become: await createKey(admin, p, 'login_password') };
  };

  it('creates each type, trims content and path, and filters by app', async () => {
    const { admin, p, key, become } = await setup();
    const repo = await createRepository(admin, p, key);
    const mk = (body: object) => admin.post(`/api/project/${p}/inventory`, { ssh_key_id: key, ...body });
    const st = await mk({ name: 'static', type: 'static', inventory: '\n[web]\nhost1\n\n', become_key_id: become });
    expect(st.json()).toMatchObject({ type: 'static', inventory: '[web]\nhost1', become_key_id: become, repository_id: null });
    expect((await mk({ name: 'yaml', type: 'static-yaml', inventory: 'all:\n  hosts: {}' })).statusCode).toBe(201);
    const file = await mk({ name: 'file', type: 'file', inventory: ' inventories/prod.ini ', repository_id: repo });
    expect(file.json()).toMatchObject({ inventory: 'inventories/prod.ini', repository_id: repo });
    expect((await mk({ name: 'ws', type: 'terraform-workspace', inventory: 'prod', repository_id: repo })).json().repository_id).toBeNull();
    expect((await mk({ name: 'tws', type: 'tofu-workspace', inventory: 'dev' })).statusCode).toBe(201);
    const names = async (q: string) => (await admin.get(`/api/project/${p}/inventory${q}`)).json().map((i: { name: string }) => i.name);
    expect(await names('')).toEqual(['file', 'static', 'tws', 'ws', 'yaml']);
    expect(await names('?app=ansible')).toEqual(['file', 'static', 'yaml']);
    expect(await names('?app=terraform')).toEqual(['ws']);
  });

  it.each([
    [{ name: '' }, 'Name is required'],
    [{ type: undefined }, 'Type is required'],
    [{ type: 'file', inventory: '' }, 'Path is required'],
    [{ type: 'file', inventory: '../../etc/passwd' }, 'Path must stay inside the repository'],
    [{ type: 'file', inventory: 'a/../../b' }, 'Path must stay inside the repository'],
    // An absolute path is judged by GANTRY_ALLOWED_LOCAL_PATHS (local-paths.int.test.ts); `..` never passes.
    [{ type: 'file', inventory: '/srv/../etc/hosts' }, 'Path must stay inside the repository'],
    [{ type: 'terraform-workspace', inventory: '' }, 'Workspace name is required'],
  ])('rejects %o with "%s"', async (over, message) => {
    const { admin, p, key } = await setup();
    const res = await admin.post(`/api/project/${p}/inventory`, { name: 'i', type: 'static', inventory: '', ssh_key_id: key, ...over });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: message });
    expect((await admin.get(`/api/project/${p}/inventory`)).json()).toEqual([]);
  });

  it('takes an inventory without credentials (null, as Semaphore stores it)', async () => {
    const { admin, p } = await setup();
    for (const body of [{}, { ssh_key_id: null }, { ssh_key_id: '' }, { ssh_key_id: 0 }]) {
      const res = await admin.post(`/api/project/${p}/inventory`, { name: 'bare', type: 'static', inventory: 'localhost', ...body });
      expect(res.statusCode, res.body).toBe(201);
      expect(res.json()).toMatchObject({ ssh_key_id: null, become_key_id: null });
    }
  });
  it('only takes a login-with-password key for become, and only this project\'s keys and repositories', async () => {
    const { admin, p, key } = await setup();
    const other = await createProject(admin);
    const otherKey = await createKey(admin, other);
    const otherRepo = await createRepository(admin, other, otherKey);
    const post = (body: object) => admin.post(`/api/project/${p}/inventory`, { name: 'i', type: 'static', ssh_key_id: key, ...body });
    expect((await post({ become_key_id: key })).json()).toEqual({ error: 'The become key must be a login with password', code: 'key_must_be_login_password', label_key: 'become_key', field: 'become_key_id' });
    expect((await post({ ssh_key_id: otherKey })).json()).toEqual({ error: 'User credentials not found in this project', code: 'not_in_project', label_key: 'user_credentials', field: 'ssh_key_id' });
    expect((await post({ type: 'file', inventory: 'x.ini', repository_id: otherRepo })).json()).toEqual({ error: 'Repository not found in this project', code: 'not_in_project', label_key: 'repository', field: 'repository_id' });
  });
});
