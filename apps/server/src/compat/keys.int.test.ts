import { describe, expect, it } from 'vitest';
import { createProject, engines, signedInUser, useTestApp } from '../test/harness.js';
import { pemPrivateKey } from '../test/keys.js';
import { scriptClient } from './script-client.js';

/** The shape Semaphore always sends for a key: every secret field present and blank. */
const blank = (over: { lpLogin?: string; sshLogin?: string } = {}) => ({
  string: '',
  login_password: { login: over.lpLogin ?? '', password: '' },
  ssh: { login: over.sshLogin ?? '', passphrase: '', private_key: '' },
  override_secret: false,
});

describe.each(engines)('compat: keys as Semaphore clients read and edit them ($name)', (engine) => {
  const t = useTestApp(engine);

  it('sends the full key shape with blank secrets, the login only in the object of its own type', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const api = await scriptClient(t(), admin);
    const p = await createProject(admin);
    const privateKey = pemPrivateKey();
    const ssh = await api.send('POST', `/api/project/${p}/keys`, {
      name: 'a-ssh',
      type: 'ssh',
      ssh: { login: 'deploy', passphrase: '', private_key: privateKey },
    });
    const lp = await api.send('POST', `/api/project/${p}/keys`, {
      name: 'b-lp',
      type: 'login_password',
      login_password: { login: 'svc', password: 'hunter2-secret' },
    });
    const none = await api.send('POST', `/api/project/${p}/keys`, { name: 'c-none', type: 'none' });
    // Gantry answers 201 with the key (Semaphore: 204 without a body); see docs/semaphore-compatibility.md.
    expect([ssh.statusCode, lp.statusCode, none.statusCode]).toEqual([201, 201, 201]);
    expect(ssh.json()).toEqual({
      id: ssh.json().id,
      project_id: p,
      name: 'a-ssh',
      type: 'ssh',
      ...blank({ sshLogin: 'deploy' }),
    });

    const list = await api.send('GET', `/api/project/${p}/keys`);
    expect(list.statusCode).toBe(200);
    expect(list.json()).toEqual([
      { id: ssh.json().id, project_id: p, name: 'a-ssh', type: 'ssh', ...blank({ sshLogin: 'deploy' }) },
      {
        id: lp.json().id,
        project_id: p,
        name: 'b-lp',
        type: 'login_password',
        ...blank({ lpLogin: 'svc' }),
      },
      { id: none.json().id, project_id: p, name: 'c-none', type: 'none', ...blank() },
    ]);
    for (const [id, login] of [
      [ssh.json().id, 'deploy'],
      [lp.json().id, 'svc'],
    ] as const) {
      const one = await api.send('GET', `/api/project/${p}/keys/${id}`);
      expect(one.statusCode).toBe(200);
      expect(one.json()).toEqual(list.json().find((k: { id: number }) => k.id === id));
      expect(JSON.stringify(one.json())).toContain(login);
    }
    // No secret ever leaves: not the password, not a line of the private key.
    expect(list.body).not.toContain('hunter2-secret');
    expect(list.body).not.toContain(privateKey.split('\n')[1]!);
  });

  it('saves a key sent back as read (blank secrets, override_secret false) without touching its secret', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const api = await scriptClient(t(), admin);
    const p = await createProject(admin);
    const created = await api.send('POST', `/api/project/${p}/keys`, {
      name: 'db',
      type: 'login_password',
      login_password: { login: 'svc', password: 'kept-secret' },
    });
    const id = created.json().id as number;
    const read = (await api.send('GET', `/api/project/${p}/keys/${id}`)).json();

    const saved = await api.send('PUT', `/api/project/${p}/keys/${id}`, { ...read, name: 'db renamed' });
    expect(saved.statusCode).toBe(204);
    expect((await api.send('GET', `/api/project/${p}/keys/${id}`)).json()).toMatchObject({
      name: 'db renamed',
      login_password: { login: 'svc', password: '' },
    });
    expect(await t().app.services.keys.secretOf(p, id)).toEqual({
      type: 'login_password',
      login: 'svc',
      password: 'kept-secret',
    });

    // With override_secret the new material replaces the old.
    const override = await api.send('PUT', `/api/project/${p}/keys/${id}`, {
      ...read,
      override_secret: true,
      login_password: { login: 'svc2', password: 'new-secret' },
    });
    expect(override.statusCode).toBe(204);
    expect(await t().app.services.keys.secretOf(p, id)).toEqual({
      type: 'login_password',
      login: 'svc2',
      password: 'new-secret',
    });
    expect((await api.send('GET', `/api/project/${p}/keys/${id}`)).json().login_password).toEqual({
      login: 'svc2',
      password: '',
    });
  });
});
