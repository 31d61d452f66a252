import type { ProjectBackup } from '@gantry/contracts';
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { gitRepo } from '../test/git-fixture.js';
import { engines, signedInUser, useTestApp, type Caller } from '../test/harness.js';
import { fullProject, SECRETS } from '../test/full-project.js';
import { taskLog, waitForTask } from '../test/tasks.js';

// Project backups both ways with Semaphore UI (issue 11, item 13): its backup restored here, and
// ours written in its format.

const fixture = (): Record<string, unknown> & { repositories: Array<{ git_url: string }> } =>
  JSON.parse(fs.readFileSync(new URL('../modules/backup/fixtures/semaphore-backup.json', import.meta.url), 'utf8'));

const PLAYBOOK = `
- hosts: all
  gather_facts: false
  tasks:
    - name: say where we are
      ansible.builtin.debug:
        msg: "restored playbook ran on {{ inventory_hostname }}"
`;

/** What the fixture holds on purpose that Gantry cannot take, in the order the importer meets it. */
const FIXTURE_UNMAPPED = [
  'Key "API token": type "string" is not supported; left out',
  'Repository "odd branch": branch "feature..x" is not a valid branch name; left out',
  'Inventory "prod file": names its repository by the source server\'s id, which cannot be mapped; uses the template\'s repository',
  'Inventory "prod file": become key "Retired become" is not in the backup\'s keys; left out',
  'Inventory "tf workspace": no user credentials; uses the "none" key instead',
  'Inventory "grunt workspace": type "terragrunt-workspace" is not supported; left out',
  'Variable group "Staging": secret left out: Variable BASH_ENV is reserved',
  'Variable group "Staging": variable left out: Variable LD_PRELOAD is reserved',
  'Template "Say hello": survey variable left out: Variable LD_PRELOAD is reserved',
  'Template "Vaulted playbook": vault key "Old vault password" is not in the backup\'s keys; left out',
  'Template "Vaulted playbook": a password vault without its key is left out',
  'Template "Deploy app": no variable group; uses an empty variable group instead',
  'Template "Prod playbook": inventory "Decommissioned hosts" is not restored, and an Ansible template needs one; left out',
  'Template "Network plan": view "Networking" is not in the backup; left out',
  'Template "Network plan": branch "release/..bad" is not a valid branch name; uses the repository\'s branch',
  'Template "Network plan": task parameter override_backend is not supported; ignored',
  'Template "Orphan": repository "Gone repository" is not restored; left out',
  'Schedule "forgotten": template "Deleted template" is not restored; left out',
  'Integration "GitHub push": value "bad name" left out: Variable must be letters, digits and underscores',
  'Integration "GitHub push": 1 alias URL(s) not restored: add new ones to the restored integration',
  '1 project alias URL(s) not restored: add new ones to the restored project',
];

/** The fields of listed objects the test reads. */
interface Row {
  id: number;
  name: string;
  env: string;
  secrets: Array<{ name: string; type: string }>;
  survey_vars: Array<{ name: string }>;
}

const backupOf = async (c: Caller, p: number, format?: string) =>
  c.get(`/api/project/${p}/backup${format ? `?format=${format}` : ''}`);

describe.each(engines)('Semaphore project backups ($name)', (engine) => {
  const t = useTestApp(engine);

  it('restores a Semaphore backup by names, reports what it could not map, and its templates run', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const repo = gitRepo(
      {
        'hello.sh': 'echo "hello from $STAGE"\n',
        'build.sh': 'echo built\n',
        'deploy.sh': 'echo deployed\n',
        'site.yml': PLAYBOOK,
      },
      ['hello.sh', 'build.sh', 'deploy.sh'],
    );
    const doc = fixture();
    doc.repositories[0]!.git_url = repo;

    const res = await admin.post('/api/projects/restore', doc);
    expect(res.statusCode, res.body).toBe(201);
    const result = res.json();
    expect(result).toEqual({
      id: expect.any(Number),
      projectName: 'Homelab',
      emptyKeys: 4,
      emptySecrets: expect.any(Array),
      unmapped: FIXTURE_UNMAPPED,
    });
    const p = result.id as number;
    const list = async (path: string) => (await admin.get(`/api/project/${p}/${path}`)).json();
    const byName = (items: Row[], name: string): Row => items.find((x) => x.name === name)!;

    expect(await list('')).toMatchObject({
      name: 'Homelab',
      alert: true,
      alert_chat: 'ops-room',
      max_parallel_tasks: 2,
    });
    const keys = await list('keys');
    expect(keys.map((k: { name: string; type: string; empty?: boolean }) => [k.name, k.type, !!k.empty])).toEqual([
      ['Become', 'login_password', true],
      ['None', 'none', false],
      ['Vault password', 'login_password', true],
      ['Webhook secret', 'login_password', true],
      ['deploy ssh', 'ssh', true],
    ]);
    const keyId = (name: string) => byName(keys, name).id;
    const repos = await list('repositories');
    expect(repos.map((r: { name: string }) => r.name).sort()).toEqual(['app', 'infra']);
    expect(byName(repos, 'app')).toMatchObject({
      git_url: 'git@github.com:acme/app.git',
      git_branch: 'main',
      ssh_key_id: keyId('deploy ssh'),
    });
    const invs = await list('inventory');
    expect(invs.map((i: { name: string }) => i.name).sort()).toEqual([
      'localhost',
      'prod file',
      'tf workspace',
      'tofu workspace',
      'web servers',
    ]);
    expect(byName(invs, 'web servers')).toMatchObject({
      type: 'static-yaml',
      ssh_key_id: keyId('deploy ssh'),
      become_key_id: keyId('Become'),
    });
    expect(byName(invs, 'prod file')).toMatchObject({ type: 'file', repository_id: null, become_key_id: null });
    expect(byName(invs, 'tf workspace')).toMatchObject({ type: 'terraform-workspace', ssh_key_id: keyId('None') });
    const envs = await list('environment');
    const staging = byName(envs, 'Staging');
    expect(JSON.parse(staging.env)).toEqual({ STAGE: 'staging' });
    expect(staging.secrets.map((s: { name: string; type: string }) => [s.name, s.type]).sort()).toEqual([
      ['DB_PASSWORD', 'env'],
      ['api_token', 'var'],
    ]);
    expect(envs.map((e: { name: string }) => e.name).sort()).toEqual(['Empty', 'Empty (added on restore)', 'Staging']);

    const tpls = await list('templates');
    expect(tpls.map((x: { name: string }) => x.name).sort()).toEqual([
      'Build app',
      'Deploy app',
      'Local playbook',
      'Network plan',
      'Say hello',
      'Vaulted playbook',
    ]);
    const views = await list('views');
    const hello = byName(tpls, 'Say hello');
    expect(hello).toMatchObject({
      app: 'bash',
      description: 'Greets whoever asks',
      suppress_success_alerts: true,
      view_id: byName(
        views.map((v: { title: string }) => ({ ...v, name: v.title })),
        'Ops',
      ).id,
      environment_id: staging.id,
    });
    expect(hello.survey_vars.map((v: { name: string }) => v.name)).toEqual(['GREETING', 'colour']);
    const playbook = byName(tpls, 'Local playbook');
    expect(playbook).toMatchObject({
      app: 'ansible',
      arguments: '["-c","local"]',
      git_branch: 'main',
      inventory_id: byName(invs, 'localhost').id,
      survey_vars: [{ name: 'version', title: 'Version', required: true }],
      vaults: [],
      task_params: { allow_debug: true, allow_override_limit: true, limit: ['localhost'] },
    });
    expect(byName(tpls, 'Vaulted playbook')).toMatchObject({
      inventory_id: byName(invs, 'web servers').id,
      vaults: [
        { name: 'prod', type: 'password', vault_key_id: keyId('Vault password') },
        { name: 'ci', type: 'script', script: 'vault/get-client.py' },
      ],
    });
    expect(byName(tpls, 'Deploy app')).toMatchObject({
      type: 'deploy',
      autorun: true,
      build_template_id: byName(tpls, 'Build app').id,
    });
    expect(byName(tpls, 'Network plan')).toMatchObject({
      app: 'terraform',
      git_branch: null,
      runner_tag: 'tf-runners',
      view_id: null,
      task_params: { allow_auto_approve: true, allow_destroy: true },
    });
    // The template's `cron` is the same as the "nightly hello" schedule: one schedule, not two.
    const schedules = await list('schedules');
    expect(
      schedules.map((s: { name: string; cron_format: string; active: boolean; repository_id: number | null }) => [
        s.name,
        s.cron_format,
        s.active,
        s.repository_id,
      ]),
    ).toEqual([
      ['nightly hello', '0 3 * * *', false, null],
      ['on push', '*/5 * * * *', false, byName(repos, 'infra').id],
    ]);
    const integrations = await list('integrations');
    const push = byName(integrations, 'GitHub push');
    expect(push).toMatchObject({
      auth_method: 'github',
      auth_secret_id: keyId('Webhook secret'),
      searchable: true,
      template_id: byName(tpls, 'Build app').id,
      task_params: { message: 'from GitHub', environment: '{"stage":"prod"}' },
    });
    expect(byName(integrations, 'Plain hook')).toMatchObject({ auth_method: '', auth_secret_id: null });
    expect((await list(`integrations/${push.id}/matchers`)).map((m: { key: string }) => m.key)).toEqual(['ref']);
    expect((await list(`integrations/${push.id}/values`)).map((v: { variable: string }) => v.variable)).toEqual([
      'COMMIT',
    ]);
    expect(await list(`integrations/${push.id}/aliases`)).toEqual([]);

    // The restored templates really run: a Bash script with its variable group, and a playbook with -c local.
    for (const [name, expected] of [
      ['Say hello', 'hello from staging'],
      ['Local playbook', 'restored playbook ran on localhost'],
    ] as const) {
      const created = await admin.post(`/api/project/${p}/tasks`, {
        template_id: byName(tpls, name).id,
        ...(name === 'Local playbook' ? { environment: '{"version":"1"}' } : {}),
      });
      expect(created.statusCode, created.body).toBe(201);
      const task = await waitForTask(admin, p, created.json().id);
      const log = (await taskLog(admin, p, created.json().id)).join('\n');
      expect(task.status, log).toBe('success');
      expect(log).toContain(expected);
    }
  });

  it('answers 400 for a malformed Semaphore backup and creates nothing', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const before = (await admin.get('/api/projects')).json().length;
    const bad = async (body: unknown, error: string | RegExp) => {
      const r = await admin.post('/api/projects/restore', body);
      expect(r.statusCode, r.body).toBe(400);
      expect(r.json().error).toMatch(error);
    };
    await bad({ meta: { name: 'x' }, templates: 'lots' }, /^Invalid Semaphore backup: templates: /);
    await bad({ meta: { name: 'x' }, keys: [{ name: 7 }] }, /^Invalid Semaphore backup: keys\[0\]\.name: /);
    await bad({ meta: { name: '' }, templates: [] }, 'Invalid backup: meta.name: Project name is required');
    await bad(
      { meta: { name: 'x' }, inventories: [{ name: 'web', become_key: 5 }] },
      /^Invalid Semaphore backup: inventories\[0\]\.become_key: /,
    );
    expect((await admin.get('/api/projects')).json()).toHaveLength(before);
  });

  it('exports in Semaphore format (names as references, no secrets) and restores it with nothing lost but secrets', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const src = await fullProject(admin);
    expect((await backupOf(admin, src.p, 'bogus')).statusCode).toBe(400);
    const res = await backupOf(admin, src.p, 'semaphore');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-disposition']).toBe(
      `attachment; filename="semaphore-project-${src.p}-Backup-source.json"`,
    );
    for (const s of [...Object.values(SECRETS), src.alias]) expect(res.body).not.toContain(s);
    expect(res.body).not.toMatch(/PRIVATE KEY|root-login/);
    const sem = res.json();
    expect(sem.meta).toEqual({
      name: 'Backup source',
      alert: false,
      alert_chat: null,
      max_parallel_tasks: 0,
      type: '',
    });
    expect(sem.meta).not.toHaveProperty('format');
    expect(sem.keys).toEqual([
      { name: 'become', type: 'login_password' },
      { name: 'deploy ssh', type: 'ssh' },
      { name: 'hook secret', type: 'login_password' },
      { name: 'none', type: 'none' },
    ]);
    const tpl = (name: string) => sem.templates.find((x: { name: string }) => x.name === name);
    expect(tpl('Playbook')).toMatchObject({
      inventory: 'hosts',
      repository: 'app repo',
      environment: 'prod vars',
      view: 'Ops',
      cron: '0 2 * * *',
      vaults: [
        { name: 'prod', type: 'password', vault_key: 'become' },
        { type: 'script', vault_key: null },
      ],
    });
    expect(tpl('Deploy')).toMatchObject({ type: 'deploy', build_template: 'Build' });
    expect(sem.repositories[0]).toEqual({
      name: 'app repo',
      git_url: 'git@example.com:acme/app.git',
      git_branch: 'main',
      ssh_key: 'deploy ssh',
    });
    expect(sem.inventories.find((i: { name: string }) => i.name === 'hosts')).toMatchObject({
      ssh_key: 'deploy ssh',
      become_key: 'become',
    });
    expect(sem.schedules).toContainEqual({
      name: 'on commit',
      cron_format: '*/5 * * * *',
      active: true,
      template: 'Build',
      checkable_repository: 'local repo',
    });
    expect(sem.integrations[0]).toMatchObject({
      template: 'Build',
      auth_method: 'hmac',
      auth_secret: 'hook secret',
      aliases: [],
    });
    expect(sem.integration_aliases).toEqual([]);

    const restored = await admin.post('/api/projects/restore', sem);
    expect(restored.statusCode, restored.body).toBe(201);
    expect(restored.json()).toEqual({
      id: expect.any(Number),
      projectName: 'Backup source',
      emptyKeys: 3,
      emptySecrets: expect.any(Array),
      unmapped: [],
    });

    // Compared through Gantry's own backup of both: equal but for key material (so the ssh
    // login) and schedules, which a restore leaves inactive.
    const gantry = async (p: number) => JSON.parse((await backupOf(admin, p, 'gantry')).body) as ProjectBackup;
    const comparable = (b: ProjectBackup) => ({
      ...b,
      meta: { ...b.meta, exported: '' },
      keys: b.keys.map((k) => (k.ssh ? { ...k, ssh: { login: '' } } : k)),
      schedules: b.schedules.map((s) => ({ ...s, active: false })),
    });
    expect(comparable(await gantry(restored.json().id))).toEqual(comparable(await gantry(src.p)));
  });
});
