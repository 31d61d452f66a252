import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commitFiles, gitRepo } from '../../test/git-fixture.js';
import { createProject, engines, signedInUser, useTestApp } from '../../test/harness.js';
import { startJsonServer, type JsonServer } from '../../test/json-server.js';

const INI = '[web]\nalpha ansible_host=10.0.0.1 http_port=80\nbeta.example.com\n[db]\ngamma\n[prod:children]\nweb\n';
const YAML = 'all:\n  children:\n    api:\n      hosts:\n        delta:\n          role: api\n';

describe.each(engines)('inventory listing ($name)', (engine) => {
  const t = useTestApp(engine, { GANTRY_FETCH_ALLOWED_HOSTS: '127.0.0.1' });
  let web: JsonServer;
  beforeAll(async () => {
    web = await startJsonServer();
  });
  afterAll(() => web?.close());

  const listing = () => t().app.services.inventoryListing;
  const inventoryRow = async (p: number, id: number) =>
    await t()
      .db.db.selectFrom('inventory')
      .selectAll()
      .where('project_id', '=', p)
      .where('id', '=', id)
      .executeTakeFirstOrThrow();

  it('lists static INI and YAML inventories with groups (inherited too) and variables', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const p = await createProject(admin);
    const ini = (
      await admin.post(`/api/project/${p}/inventory`, { name: 'ini', type: 'static', inventory: INI })
    ).json().id;
    const yml = (
      await admin.post(`/api/project/${p}/inventory`, { name: 'yml', type: 'static-yaml', inventory: YAML })
    ).json().id;
    const a = await listing().list(p, ini);
    expect(a.hosts.map((h) => h.name)).toEqual(['alpha', 'beta.example.com', 'gamma']);
    expect(a.hosts[0]).toEqual({
      name: 'alpha',
      groups: ['prod', 'web'],
      vars: { ansible_host: '10.0.0.1', http_port: 80 },
    });
    expect(a.hosts[2]!.groups).toEqual(['db']);
    expect(a.groups).toEqual(expect.arrayContaining(['db', 'prod', 'web']));
    expect(a.groups).not.toContain('all');
    const b = await listing().list(p, yml);
    expect(b.hosts).toEqual([{ name: 'delta', groups: ['api'], vars: { role: 'api' } }]);
  }, 60_000);

  it('reads a repository file at its branch and records the read', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const p = await createProject(admin);
    const dir = gitRepo({ 'hosts.ini': '[main]\nfrom-main\n' });
    const { execFileSync } = await import('node:child_process');
    execFileSync('git', ['checkout', '-q', '-b', 'staging'], { cwd: dir });
    commitFiles(dir, { 'inv/hosts.ini': '[staging]\nfrom-staging\n' });
    execFileSync('git', ['checkout', '-q', 'main'], { cwd: dir });
    const key = (await admin.post(`/api/project/${p}/keys`, { name: 'none', type: 'none' })).json().id;
    const r = await admin.post(`/api/project/${p}/repositories`, {
      name: 'r',
      git_url: `file://${dir}`,
      git_branch: 'main',
      ssh_key_id: key,
    });
    expect(r.statusCode, r.body).toBe(201);
    const repo = r.json().id;
    const res = await admin.post(`/api/project/${p}/inventory`, {
      name: 'f',
      type: 'file',
      inventory: 'inv/hosts.ini',
      repository_id: repo,
      git_branch: 'staging',
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().git_branch).toBe('staging');
    const l = await listing().list(p, res.json().id);
    expect(l.hosts.map((h) => h.name)).toEqual(['from-staging']);
    const row = await inventoryRow(p, res.json().id);
    expect(row.last_read_at).toBeTruthy();
    expect(row.last_error).toBeNull();
    // On the repository's own branch the file is not there: the read fails and says so.
    const other = (
      await admin.post(`/api/project/${p}/inventory`, {
        name: 'g',
        type: 'file',
        inventory: 'inv/hosts.ini',
        repository_id: repo,
      })
    ).json().id;
    await expect(listing().list(p, other)).rejects.toThrow('inv/hosts.ini is not in the repository at branch main');
    expect((await inventoryRow(p, other)).last_error).toMatch(/not in the repository/);
    // A file of the template's own repository cannot be listed without a template: said, not recorded as a failed read.
    const own = (
      await admin.post(`/api/project/${p}/inventory`, { name: 'own', type: 'file', inventory: 'inv/hosts.ini' })
    ).json().id;
    await expect(listing().list(p, own)).rejects.toThrow(/template's repository/);
    expect((await inventoryRow(p, own)).last_error).toBeNull();
    // With a template it is read from the template's repository at the template's branch, as its runs read it.
    const env = (await admin.post(`/api/project/${p}/environment`, { name: 'e', json: '{}', env: '{}' })).json().id;
    const template = async (name: string, git_branch?: string) => {
      const made = await admin.post(`/api/project/${p}/templates`, {
        name,
        app: 'ansible',
        playbook: 'site.yml',
        repository_id: repo,
        environment_id: env,
        inventory_id: own,
        ...(git_branch ? { git_branch } : {}),
      });
      expect(made.statusCode, made.body).toBe(201);
      return made.json().id as number;
    };
    const staged = await listing().list(p, own, await template('staged', 'staging'));
    expect(staged.hosts.map((h) => h.name)).toEqual(['from-staging']);
    await expect(listing().list(p, own, await template('on main'))).rejects.toThrow(
      'inv/hosts.ini is not in the repository at branch main',
    );
    // A text no inventory plugin reads fails too, instead of listing no hosts.
    const junk = (
      await admin.post(`/api/project/${p}/inventory`, { name: 'j', type: 'static-yaml', inventory: '- just\n- a list' })
    ).json().id;
    await expect(listing().list(p, junk)).rejects.toThrow(/ansible-inventory exited/);
  }, 60_000);

  it('runs a dynamic inventory script and reads an inventory plugin config from a repository, in the sandbox', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const p = await createProject(admin);
    const script =
      '#!/usr/bin/env python3\nimport json, sys\n' +
      'if "--host" in sys.argv:\n    print("{}")\nelse:\n' +
      '    print(json.dumps({"dyn": {"hosts": ["script-1", "script-2"], "vars": {"tier": "dyn"}}, "_meta": {"hostvars": {}}}))\n';
    const generator =
      'plugin: ansible.builtin.generator\nhosts:\n  name: "{{ app }}-{{ env }}"\n  parents:\n    - name: "{{ env }}"\n' +
      'layers:\n  app: [web, api]\n  env: [prod]\n';
    const dir = gitRepo({ 'inv/dynamic.py': script, 'inv/generated.yml': generator }, ['inv/dynamic.py']);
    const key = (await admin.post(`/api/project/${p}/keys`, { name: 'none', type: 'none' })).json().id;
    const repo = (
      await admin.post(`/api/project/${p}/repositories`, {
        name: 'r',
        git_url: `file://${dir}`,
        git_branch: 'main',
        ssh_key_id: key,
      })
    ).json().id;
    const inv = async (name: string, path: string) =>
      (
        await admin.post(`/api/project/${p}/inventory`, { name, type: 'file', inventory: path, repository_id: repo })
      ).json().id as number;
    const dyn = await listing().list(p, await inv('script', 'inv/dynamic.py'));
    expect(dyn.hosts.map((h) => [h.name, h.groups, h.vars])).toEqual([
      ['script-1', ['dyn'], { tier: 'dyn' }],
      ['script-2', ['dyn'], { tier: 'dyn' }],
    ]);
    const gen = await listing().list(p, await inv('plugin', 'inv/generated.yml'));
    expect(gen.hosts.map((h) => [h.name, h.groups])).toEqual([
      ['api-prod', ['prod']],
      ['web-prod', ['prod']],
    ]);
  }, 60_000);

  it('fetches a URL inventory (INI or YAML by content) and records a failed fetch', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const p = await createProject(admin);
    web.route('/inv.ini', (res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('[remote]\nurl-host-1\nurl-host-2\n');
    });
    web.route('/inv.yml', (res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end(YAML);
    });
    const mk = async (name: string, url: string) =>
      (await admin.post(`/api/project/${p}/inventory`, { name, type: 'url', inventory: url })).json().id as number;
    const ini = await mk('u1', `${web.url}/inv.ini`);
    expect((await listing().list(p, ini)).hosts.map((h) => [h.name, h.groups])).toEqual([
      ['url-host-1', ['remote']],
      ['url-host-2', ['remote']],
    ]);
    expect((await inventoryRow(p, ini)).last_read_at).toBeTruthy();
    const yml = await mk('u2', `${web.url}/inv.yml`);
    expect((await listing().list(p, yml)).hosts.map((h) => h.name)).toEqual(['delta']);
    const missing = await mk('u3', `${web.url}/missing?token=hidden`);
    await expect(listing().list(p, missing)).rejects.toThrow(/404/);
    const row = await inventoryRow(p, missing);
    expect(row.last_error).toMatch(/404/);
    expect(row.last_error).not.toContain('hidden');
    expect(row.last_read_at).toBeNull();
  }, 60_000);

  it('refuses URLs that are not http(s) or carry credentials, and workspaces', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const p = await createProject(admin);
    for (const url of [
      'ftp://example.com/x',
      'http://user:pw@example.com/x',
      'file:///etc/passwd',
      'http://exa mple.com',
      '',
    ]) {
      const r = await admin.post(`/api/project/${p}/inventory`, { name: 'bad', type: 'url', inventory: url });
      expect(r.statusCode, url).toBe(400);
      expect(r.json().code).toBe('inventory_url_invalid');
      expect(r.json().field).toBe('inventory');
    }
    const ws = (
      await admin.post(`/api/project/${p}/inventory`, { name: 'w', type: 'terraform-workspace', inventory: 'default' })
    ).json().id;
    await expect(listing().list(p, ws)).rejects.toThrow(/no hosts/);
  });
});
