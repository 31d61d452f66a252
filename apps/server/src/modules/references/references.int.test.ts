import { describe, expect, it } from 'vitest';
import { addMember, createProject, engines, signedInUser, useTestApp } from '../../test/harness.js';
import { createKey, createRepository } from '../../test/resources.js';

const empty = { templates: [], inventories: [], repositories: [], schedules: [], integrations: [] };

describe.each(engines)('references and safe deletes ($name)', (engine) => {
  const t = useTestApp(engine);

  it('lists what uses a key and refuses its delete with 409 until nothing does', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const p = await createProject(admin);
    const key = await createKey(admin, p);
    const become = await createKey(admin, p, 'login_password', 'become');
    const repo = await createRepository(admin, p, key, 'app-repo');
    const inv = (await admin.post(`/api/project/${p}/inventory`, { name: 'hosts', type: 'static', ssh_key_id: key, become_key_id: become })).json().id;

    expect((await admin.get(`/api/project/${p}/keys/${key}/refs`)).json()).toEqual({
      ...empty,
      repositories: [{ id: repo, name: 'app-repo' }],
      inventories: [{ id: inv, name: 'hosts' }],
    });
    expect((await admin.get(`/api/project/${p}/keys/${become}/refs`)).json()).toEqual({ ...empty, inventories: [{ id: inv, name: 'hosts' }] });

    const blocked = await admin.del(`/api/project/${p}/keys/${key}`);
    expect(blocked.statusCode).toBe(409);
    expect(blocked.json()).toMatchObject({ error: "Can't delete the key", code: 'key_in_use', references: { repositories: [{ id: repo, name: 'app-repo' }] } });
    expect((await admin.get(`/api/project/${p}/keys/${key}`)).statusCode).toBe(200);

    expect((await admin.del(`/api/project/${p}/inventory/${inv}`)).statusCode).toBe(204);
    expect((await admin.del(`/api/project/${p}/repositories/${repo}`)).statusCode).toBe(204);
    expect((await admin.get(`/api/project/${p}/keys/${key}/refs`)).json()).toEqual(empty);
    expect((await admin.del(`/api/project/${p}/keys/${key}`)).statusCode).toBe(204);
  });

  it('refuses deleting a repository used by a file inventory', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const p = await createProject(admin);
    const key = await createKey(admin, p);
    const repo = await createRepository(admin, p, key);
    const inv = (await admin.post(`/api/project/${p}/inventory`, { name: 'from-repo', type: 'file', inventory: 'hosts.ini', repository_id: repo, ssh_key_id: key })).json().id;
    const res = await admin.del(`/api/project/${p}/repositories/${repo}`);
    expect(res.statusCode).toBe(409);
    expect(res.json().error).toBe("Can't delete the repository");
    expect((await admin.get(`/api/project/${p}/repositories/${repo}/refs`)).json().inventories).toEqual([{ id: inv, name: 'from-repo' }]);
  });
});

describe.each(engines)('project isolation ($name)', (engine) => {
  const t = useTestApp(engine);

  it("never reaches project B's resources through project A's path", async () => {
    const ctx = t();
    const owner = await signedInUser(ctx);
    const admin = await signedInUser(ctx, { admin: true });
    const a = await createProject(admin);
    const b = await createProject(admin);
    await addMember(ctx, a, owner.id, 'owner');
    const keyB = await createKey(admin, b);
    const repoB = await createRepository(admin, b, keyB);
    const invB = (await admin.post(`/api/project/${b}/inventory`, { name: 'i', type: 'static', ssh_key_id: keyB })).json().id;
    const envB = (await admin.post(`/api/project/${b}/environment`, { name: 'e' })).json().id;
    for (const [section, id] of [['keys', keyB], ['repositories', repoB], ['inventory', invB], ['environment', envB]] as const) {
      expect((await owner.get(`/api/project/${a}/${section}/${id}`)).statusCode).toBe(404);
      expect((await owner.get(`/api/project/${a}/${section}/${id}/refs`)).statusCode).toBe(404);
      expect((await owner.put(`/api/project/${a}/${section}/${id}`, { name: 'x', type: 'none' })).statusCode).toBeGreaterThanOrEqual(400);
      expect((await owner.del(`/api/project/${a}/${section}/${id}`)).statusCode).toBe(404);
      expect((await owner.get(`/api/project/${b}/${section}/${id}`)).statusCode).toBe(404);
      expect((await owner.get(`/api/project/${b}/${section}`)).json()).toEqual({ error: 'Project not found', code: 'project_not_found' });
      expect((await admin.get(`/api/project/${b}/${section}/${id}`)).statusCode).toBe(200);
    }
  });
});
