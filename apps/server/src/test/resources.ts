import type { Caller } from './harness.js';

/** Creates a key of the given type in a project and returns its id. */
export async function createKey(c: Caller, projectId: number, type: 'none' | 'login_password' = 'none', name = `key-${type}`): Promise<number> {
  const body = type === 'none' ? { name, type } : { name, type, login_password: { login: 'u', password: 'p' } };
  const res = await c.post(`/api/project/${projectId}/keys`, body);
  if (res.statusCode !== 201) throw new Error(`create key: ${res.statusCode} ${res.body}`);
  return res.json<{ id: number }>().id;
}

export async function createRepository(c: Caller, projectId: number, keyId: number, name = 'repo'): Promise<number> {
  const res = await c.post(`/api/project/${projectId}/repositories`, { name, git_url: 'https://example.com/org/repo.git', git_branch: 'main', ssh_key_id: keyId });
  if (res.statusCode !== 201) throw new Error(`create repository: ${res.statusCode} ${res.body}`);
  return res.json<{ id: number }>().id;
}
