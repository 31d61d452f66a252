import { describe, expect, it } from 'vitest';
import { emptyKeyNotice, emptySecretNotice } from '../../engine/run-context.js';
import { gitRepo } from '../../test/git-fixture.js';
import { createProject, engines, signedInUser, useTestApp } from '../../test/harness.js';
import { pemPrivateKey } from '../../test/keys.js';
import { runTask, setupTemplate, taskLog, waitForTask } from '../../test/tasks.js';

// Issue 22, item 11: a backup never holds secrets, so a restored project's keys and secret
// variables come back empty. The restore names every one of them, keeps what is not secret (an
// ssh key's login), and a task run while one is still empty says so at the top of its log.
describe.each(engines.map((e) => [e.name, e] as const))('secrets a restore left empty (%s)', (_name, engine) => {
  const t = useTestApp(engine);

  it('are listed by the restore, and a run that uses one says so first; filled in, the notice goes', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const p = await createProject(admin);
    const repo = gitRepo({ 'run.sh': 'echo "token is set: ${API_TOKEN:+yes}"\n' }, ['run.sh']);
    const setup = await setupTemplate(admin, p, repo, { playbook: 'run.sh' }, {
      name: 'prod',
      secrets: [{ name: 'API_TOKEN', secret: 's3cret-value', type: 'env', operation: 'create' }],
    });
    const ssh = await admin.post(`/api/project/${p}/keys`, { name: 'deploy', type: 'ssh', ssh: { login: 'deployer', private_key: pemPrivateKey(), passphrase: '' } });
    expect(ssh.statusCode).toBe(201);
    const inv = await admin.post(`/api/project/${p}/inventory`, { name: 'hosts', type: 'static', inventory: 'localhost', ssh_key_id: ssh.json().id });
    expect(inv.statusCode).toBe(201);
    const stored = (await admin.get(`/api/project/${p}/templates/${setup.templateId}`)).json<Record<string, unknown>>();
    expect((await admin.put(`/api/project/${p}/templates/${setup.templateId}`, { ...stored, inventory_id: inv.json().id })).statusCode).toBe(204);

    const backup = (await admin.get(`/api/project/${p}/backup?format=gantry`)).json();
    const restored = await admin.post('/api/projects/restore', { ...backup, meta: { ...backup.meta, name: 'Copy' } });
    expect(restored.statusCode).toBe(201);
    const result = restored.json();
    expect(result.emptySecrets).toEqual([
      { kind: 'key', name: 'deploy' },
      { kind: 'secret', group: 'prod', name: 'API_TOKEN' },
    ]);
    const q = result.id as number;

    // The login of an ssh key is not a secret: it came back.
    const keys = (await admin.get(`/api/project/${q}/keys`)).json() as Array<{ id: number; name: string; empty?: boolean; ssh: { login: string } }>;
    expect(keys.find((k) => k.name === 'deploy')).toMatchObject({ empty: true, ssh: { login: 'deployer' } });

    const template = (await admin.get(`/api/project/${q}/templates`)).json()[0];
    const first = await runTask(admin, q, { template_id: template.id });
    await waitForTask(admin, q, first);
    const log = await taskLog(admin, q, first);
    const started = log.findIndex((l) => l.startsWith(`Task #`) || /started/.test(l));
    expect(started).toBeGreaterThanOrEqual(0);
    // The notices come before anything the run itself prints.
    const notices = [emptyKeyNotice('deploy'), emptySecretNotice('prod', 'API_TOKEN')];
    for (const n of notices) expect(log.indexOf(n), `${n} in\n${log.join('\n')}`).toBeGreaterThan(-1);
    const scriptLine = log.findIndex((l) => l.startsWith('token is set'));
    expect(Math.max(...notices.map((n) => log.indexOf(n)))).toBeLessThan(scriptLine);

    // Filled in, the run says nothing about them.
    const env = (await admin.get(`/api/project/${q}/environment`)).json()[0];
    const secret = env.secrets[0];
    expect(
      (await admin.put(`/api/project/${q}/environment/${env.id}`, { ...env, secrets: [{ id: secret.id, name: 'API_TOKEN', secret: 'new-value', type: 'env', operation: 'update' }] })).statusCode,
    ).toBe(204);
    const key = keys.find((k) => k.name === 'deploy')!;
    expect(
      (await admin.put(`/api/project/${q}/keys/${key.id}`, { name: 'deploy', type: 'ssh', override_secret: true, ssh: { login: 'deployer', private_key: pemPrivateKey(), passphrase: '' } })).statusCode,
    ).toBe(204);
    const second = await runTask(admin, q, { template_id: template.id });
    await waitForTask(admin, q, second);
    const log2 = await taskLog(admin, q, second);
    expect(log2.some((l) => l.includes('secrets come back empty') || l.includes('keys come back empty'))).toBe(false);
    expect(log2).toContain('token is set: yes');
  });
});
