import { describe, expect, it } from 'vitest';
import { createProject, engines, signedInUser, useTestApp } from '../../test/harness.js';
import { createKey } from '../../test/resources.js';

describe.each(engines)('repositories ($name)', (engine) => {
  const t = useTestApp(engine);

  it.each([
    'https://github.com/org/repo.git',
    'http://git.local/repo',
    'ssh://git@host:22/org/repo.git',
    'git://host/repo.git',
    'file:///srv/git/repo.git',
    'git@github.com:org/repo.git',
  ])('accepts %s with a branch', async (url) => {
    const admin = await signedInUser(t(), { admin: true });
    const p = await createProject(admin);
    const key = await createKey(admin, p);
    const res = await admin.post(`/api/project/${p}/repositories`, { name: ' r ', git_url: ` ${url} `, git_branch: ' main ', ssh_key_id: key });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ name: 'r', git_url: url, git_branch: 'main', ssh_key_id: key });
  });

  it('does not need a branch for a local path, and drops one given', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const p = await createProject(admin);
    const key = await createKey(admin, p);
    const res = await admin.post(`/api/project/${p}/repositories`, { name: 'local', git_url: '/srv/repo', git_branch: 'dev', ssh_key_id: key });
    expect(res.json()).toMatchObject({ git_url: '/srv/repo', git_branch: '' });
  });

  it.each([
    [{ git_url: '' }, 'Repository URL is required'],
    [{ git_url: 'ftp://host/repo' }, 'Incorrect URL'],
    [{ git_url: '-oProxyCommand=touch /tmp/x' }, 'Incorrect URL'],
    [{ git_url: 'ext::sh -c touch% /tmp/pwned' }, 'Incorrect URL'],
    [{ git_url: 'https://host/re\u0001po' }, 'Incorrect URL'],
    [{ git_url: 'not a url' }, 'Incorrect URL'],
    [{ git_branch: '' }, 'Branch is required'],
    [{ git_branch: '--upload-pack=evil' }, 'Incorrect branch'],
    [{ git_branch: 'ma\nin' }, 'Incorrect branch'],
    [{ name: '' }, 'Name is required'],
    [{ ssh_key_id: undefined }, 'Access key is required'],
  ])('rejects %o with "%s"', async (over, message) => {
    const admin = await signedInUser(t(), { admin: true });
    const p = await createProject(admin);
    const key = await createKey(admin, p);
    const res = await admin.post(`/api/project/${p}/repositories`, { name: 'r', git_url: 'https://h/r.git', git_branch: 'main', ssh_key_id: key, ...over });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: message, code: expect.any(String), field: expect.any(String) });
    expect((await admin.get(`/api/project/${p}/repositories`)).json()).toEqual([]);
  });

  it("refuses another project's key", async () => {
    const admin = await signedInUser(t(), { admin: true });
    const a = await createProject(admin);
    const b = await createProject(admin);
    const keyB = await createKey(admin, b);
    const res = await admin.post(`/api/project/${a}/repositories`, { name: 'r', git_url: 'https://h/r.git', git_branch: 'main', ssh_key_id: keyB });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: 'Access key not found in this project', code: 'not_in_project', label_key: 'access_key', field: 'ssh_key_id' });
  });

  it('updates and deletes', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const p = await createProject(admin);
    const key = await createKey(admin, p);
    const id = (await admin.post(`/api/project/${p}/repositories`, { name: 'r', git_url: 'https://h/r.git', git_branch: 'main', ssh_key_id: key })).json().id;
    expect((await admin.put(`/api/project/${p}/repositories/${id}`, { name: 'r2', git_url: 'git@h:o/r.git', git_branch: 'dev', ssh_key_id: key })).statusCode).toBe(204);
    expect((await admin.get(`/api/project/${p}/repositories/${id}`)).json()).toMatchObject({ name: 'r2', git_url: 'git@h:o/r.git', git_branch: 'dev' });
    expect((await admin.del(`/api/project/${p}/repositories/${id}`)).statusCode).toBe(204);
    expect((await admin.get(`/api/project/${p}/repositories/${id}`)).statusCode).toBe(404);
  });
});
