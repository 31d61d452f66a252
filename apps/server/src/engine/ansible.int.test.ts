import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gitRepo } from '../test/git-fixture.js';
import { createProject, engines, signedInUser, useTestApp } from '../test/harness.js';
import { startSshd, type TestSshd } from '../test/sshd.js';
import { runTask, setupTemplate, taskLog, waitForTask } from '../test/tasks.js';

const PLAYBOOK = `
- hosts: all
  gather_facts: false
  tasks:
    - name: say hello
      ansible.builtin.debug:
        msg: "hello {{ target }} from {{ inventory_hostname }}"
    - name: run a command
      ansible.builtin.command: echo "ran on {{ inventory_hostname }}"
      register: out
      changed_when: false
    - ansible.builtin.debug:
        var: out.stdout
`;

describe.each(engines)('ansible ($name)', (engine) => {
  const t = useTestApp(engine);
  let sshd: TestSshd;
  beforeAll(async () => {
    sshd = await startSshd();
  });
  afterAll(() => sshd?.stop());

  it('has ansible-playbook here', () => {
    expect(fs.existsSync('/usr/bin/ansible-playbook')).toBe(true);
  });

  it('runs a playbook against localhost with a static inventory, extra vars and --check/--diff/--limit', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const p = await createProject(admin);
    const repo = gitRepo({ 'site.yml': PLAYBOOK });
    const key = (await admin.post(`/api/project/${p}/keys`, { name: 'none', type: 'none' })).json().id;
    const inv = (
      await admin.post(`/api/project/${p}/inventory`, {
        name: 'local',
        type: 'static',
        inventory: '[web]\nlocalhost ansible_connection=local ansible_python_interpreter=/usr/bin/python3\nother ansible_connection=local ansible_python_interpreter=/usr/bin/python3',
        ssh_key_id: key,
      })
    ).json().id;
    const s = await setupTemplate(admin, p, repo, {
      app: 'ansible',
      playbook: 'site.yml',
      inventory_id: inv,
      task_params: { allow_debug: true, allow_override_limit: true },
    }, { json: '{"target": "world"}' });
    const id = await runTask(admin, p, { template_id: s.templateId, params: { debug: true, debug_level: 2, dry_run: true, diff: true, limit: ['localhost'] } });
    const task = await waitForTask(admin, p, id);
    const log = (await taskLog(admin, p, id)).join('\n');
    expect(task.status, log).toBe('success');
    expect(log).toContain('hello world from localhost');
    expect(log).not.toContain('from other');
    expect(log).toMatch(/PLAY RECAP/);
    expect(log).toMatch(/localhost\s+: ok=\d+/);
  }, 90_000);

  it('clones the repository over SSH with a stored key and runs the playbook over SSH with that key', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const p = await createProject(admin);
    const bare = gitRepo({ 'site.yml': PLAYBOOK });
    const key = (await admin.post(`/api/project/${p}/keys`, { name: 'ssh', type: 'ssh', ssh: { login: sshd.user, private_key: sshd.privateKey } })).json().id;
    const repo = await admin.post(`/api/project/${p}/repositories`, { name: 'over-ssh', git_url: `ssh://${sshd.user}@${sshd.host}:${sshd.port}${bare}`, git_branch: 'main', ssh_key_id: key });
    expect(repo.statusCode).toBe(201);
    const inv = (
      await admin.post(`/api/project/${p}/inventory`, {
        name: 'ssh-host',
        type: 'static',
        inventory: `target ansible_host=${sshd.host} ansible_port=${sshd.port} ansible_python_interpreter=/usr/bin/python3`,
        ssh_key_id: key,
      })
    ).json().id;
    const env = (await admin.post(`/api/project/${p}/environment`, { name: 'vars', json: '{"target": "ssh"}' })).json().id;
    const tpl = await admin.post(`/api/project/${p}/templates`, { name: 'over ssh', app: 'ansible', playbook: 'site.yml', repository_id: repo.json().id, environment_id: env, inventory_id: inv });
    expect(tpl.statusCode).toBe(201);
    const id = await runTask(admin, p, { template_id: tpl.json().id });
    const task = await waitForTask(admin, p, id);
    const log = (await taskLog(admin, p, id)).join('\n');
    expect(task.status, log).toBe('success');
    expect(task.commit_message).toBe('initial');
    expect(log).toContain('hello ssh from target');
    expect(log).toContain('ran on target');
    expect(log).not.toContain('PRIVATE KEY');
    // The key existed for the run only.
    expect(fs.readdirSync(t().config.taskDir)).toEqual([]);
  }, 90_000);

  it('unlocks a passphrase-protected key with ssh-agent for the clone, and removes it afterwards', async () => {
    const locked = await startSshd('correct horse');
    try {
      const admin = await signedInUser(t(), { admin: true });
      const p = await createProject(admin);
      const bare = gitRepo({ 'run.sh': 'echo cloned with a locked key\n' });
      const mkKey = async (passphrase: string) =>
        (await admin.post(`/api/project/${p}/keys`, { name: `k-${passphrase}`, type: 'ssh', ssh: { login: locked.user, passphrase, private_key: locked.privateKey } })).json().id;
      for (const [passphrase, expected] of [['correct horse', 'success'], ['wrong horse', 'error']] as const) {
        const key = await mkKey(passphrase);
        const repo = (await admin.post(`/api/project/${p}/repositories`, { name: `r-${passphrase}`, git_url: `ssh://${locked.user}@${locked.host}:${locked.port}${bare}`, git_branch: 'main', ssh_key_id: key })).json().id;
        const env = (await admin.post(`/api/project/${p}/environment`, { name: `e-${passphrase}` })).json().id;
        const tpl = (await admin.post(`/api/project/${p}/templates`, { name: `t-${passphrase}`, app: 'bash', playbook: 'run.sh', repository_id: repo, environment_id: env })).json().id;
        const id = await runTask(admin, p, { template_id: tpl });
        const task = await waitForTask(admin, p, id);
        const log = (await taskLog(admin, p, id)).join('\n');
        expect(task.status, log).toBe(expected);
        if (expected === 'success') expect(log).toContain('cloned with a locked key');
        else expect(log).toContain('could not be unlocked');
        expect(log).not.toContain(passphrase);
      }
    } finally {
      locked.stop();
    }
  }, 90_000);
});
