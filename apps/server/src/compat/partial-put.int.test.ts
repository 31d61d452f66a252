import { describe, expect, it } from 'vitest';
import { fullProject } from '../test/full-project.js';
import { engines, signedInUser, useTestApp } from '../test/harness.js';
import { scriptClient } from './script-client.js';

/**
 * Partial `PUT`s as scripts send them ("rename this template"): every field left out keeps its
 * stored value, secrets included; a field sent as `null` where it cannot be null is "not given".
 */
describe.each(engines)('compat: partial updates keep what they leave out ($name)', (engine) => {
  const t = useTestApp(engine);

  it('renames every kind of project object with a body holding only its name', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const { p } = await fullProject(admin);
    const api = await scriptClient(t(), admin);
    const kinds: { path: string; nameField: string }[] = [
      { path: 'keys', nameField: 'name' },
      { path: 'repositories', nameField: 'name' },
      { path: 'inventory', nameField: 'name' },
      { path: 'environment', nameField: 'name' },
      { path: 'templates', nameField: 'name' },
      { path: 'views', nameField: 'title' },
    ];
    for (const { path, nameField } of kinds) {
      const items = (await api.send('GET', `/api/project/${p}/${path}`)).json() as Record<string, unknown>[];
      expect(items.length, path).toBeGreaterThan(0);
      for (const before of items) {
        const url = `/api/project/${p}/${path}/${before.id}`;
        const stored = (await api.send('GET', url)).json() as Record<string, unknown>;
        const renamed = `${String(stored[nameField])} (renamed)`;
        const res = await api.send('PUT', url, { [nameField]: renamed });
        expect(res.statusCode, `${path} ${String(before.id)}: ${res.body}`).toBe(204);
        const after = (await api.send('GET', url)).json() as Record<string, unknown>;
        // A template's vault rows are written anew on every update (same content, new row ids).
        expect(withoutVaultIds(after), `${path} ${String(before.id)}`).toEqual(withoutVaultIds({ ...stored, [nameField]: renamed }));
      }
    }
    // The variable group's secrets and the keys' secrets were kept: a backup still lists them.
    const env = ((await api.send('GET', `/api/project/${p}/environment`)).json() as { secrets: { name: string }[] }[])[0]!;
    expect(env.secrets.map((s) => s.name).sort()).toEqual(['DB_PASSWORD', 'api_token']);
  });

  it('keeps the project settings a rename leaves out, and treats null as not given', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const { p } = await fullProject(admin);
    expect((await admin.put(`/api/project/${p}`, { name: 'Set', alert: true, alert_chat: 'ops', max_parallel_tasks: 4 })).statusCode).toBe(204);
    const api = await scriptClient(t(), admin);
    expect((await api.send('PUT', `/api/project/${p}`, { name: 'Renamed' })).statusCode).toBe(204);
    expect((await api.send('GET', `/api/project/${p}`)).json()).toMatchObject({ name: 'Renamed', alert: true, alert_chat: 'ops', max_parallel_tasks: 4 });
    expect((await api.send('PUT', `/api/project/${p}`, { name: 'Again', alert: null, max_parallel_tasks: null })).statusCode).toBe(204);
    expect((await api.send('GET', `/api/project/${p}`)).json()).toMatchObject({ name: 'Again', alert: true, alert_chat: 'ops', max_parallel_tasks: 4 });
  });

  it('renames a user with a body holding only the name, keeping the rest', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const other = await signedInUser(t());
    const api = await scriptClient(t(), admin);
    expect((await api.send('PUT', `/api/users/${other.id}`, { name: other.username, username: other.username, email: `${other.username}@example.com`, alert: true, admin: false })).statusCode).toBe(204);
    const stored = (await api.send('GET', `/api/users/${other.id}`)).json();
    const res = await api.send('PUT', `/api/users/${other.id}`, { name: 'Renamed Person' });
    expect(res.statusCode, res.body).toBe(204);
    expect((await api.send('GET', `/api/users/${other.id}`)).json()).toEqual({ ...stored, name: 'Renamed Person' });
    // Oneself, with the session: the same.
    const self = await other.put(`/api/users/${other.id}`, { email: 'moved@example.com' });
    expect(self.statusCode, self.body).toBe(204);
    expect((await other.get(`/api/users/${other.id}`)).json()).toMatchObject({ name: 'Renamed Person', alert: true, email: 'moved@example.com' });
    // Another user's record stays out of reach: the merge reads nothing the caller may not.
    const hijack = await other.put(`/api/users/${admin.id}`, { name: 'Hijack', username: admin.username, email: `${admin.username}@example.com` });
    expect(hijack.statusCode).toBe(404);
    expect((await other.put(`/api/users/${admin.id}`, { name: 'Hijack' })).statusCode).toBe(400);
    expect((await api.send('GET', `/api/users/${admin.id}`)).json().name).not.toBe('Hijack');
  });

  it('still refuses a partial update that breaks a rule, and changes nothing', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const { p } = await fullProject(admin);
    const api = await scriptClient(t(), admin);
    const repos = (await api.send('GET', `/api/project/${p}/repositories`)).json() as { id: number; git_url: string }[];
    const remote = repos.find((r) => !r.git_url.startsWith('/'))!;
    const bad = await api.send('PUT', `/api/project/${p}/repositories/${remote.id}`, { git_url: 'not a url at all' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().field).toBe('git_url');
    expect((await api.send('GET', `/api/project/${p}/repositories/${remote.id}`)).json().git_url).toBe(remote.git_url);
  });
});

function withoutVaultIds(item: Record<string, unknown>): Record<string, unknown> {
  if (!Array.isArray(item.vaults)) return item;
  return { ...item, vaults: (item.vaults as Record<string, unknown>[]).map(({ id: _id, ...v }) => v) };
}
