import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { commitFiles, gitRepo } from '../../test/git-fixture.js';
import { addMember, createProject, engines, signedInUser, useTestApp } from '../../test/harness.js';
import { startJsonServer, type JsonServer } from '../../test/json-server.js';
import { runTask, setupTemplate, taskLog, waitForTask } from '../../test/tasks.js';

const PLAYBOOK = `
- hosts: all
  gather_facts: false
  tasks:
    - ansible.builtin.debug:
        msg: "hello from {{ inventory_hostname }}"
`;
const LOCAL = 'ansible_connection=local ansible_python_interpreter=/usr/bin/python3';

describe.each(engines)('hosts ($name)', (engine) => {
  const t = useTestApp(engine, { GANTRY_FETCH_ALLOWED_HOSTS: '127.0.0.1' });
  let web: JsonServer;
  beforeAll(async () => {
    web = await startJsonServer();
    web.route('/inv.yml', (res) => {
      res.writeHead(200, { 'content-type': 'text/yaml' });
      res.end(
        'all:\n  hosts:\n    url-host:\n      ansible_connection: local\n      ansible_python_interpreter: /usr/bin/python3\n',
      );
    });
  });
  afterAll(() => web?.close());

  it('runs one playbook over several inventories (static, YAML, a repository file at a branch, a URL) and shows their hosts', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const p = await createProject(admin);
    const dir = gitRepo({ 'site.yml': PLAYBOOK });
    execFileSync('git', ['checkout', '-q', '-b', 'staging'], { cwd: dir });
    commitFiles(dir, { 'inv/hosts.ini': `[repo]\nrepo-host ${LOCAL}\n` });
    execFileSync('git', ['checkout', '-q', 'main'], { cwd: dir });
    const keyId = (await admin.post(`/api/project/${p}/keys`, { name: 'none', type: 'none' })).json().id;
    const inv = async (body: Record<string, unknown>) => {
      const r = await admin.post(`/api/project/${p}/inventory`, body);
      expect(r.statusCode, r.body).toBe(201);
      return r.json().id as number;
    };
    const a = await inv({
      name: 'ini',
      type: 'static',
      inventory: `[web]\nweb-a ${LOCAL} db_password=hunter22 motd=sup3r-s3cret plain=visible`,
    });
    const b = await inv({
      name: 'yaml',
      type: 'static-yaml',
      inventory:
        'all:\n  hosts:\n    yaml-b:\n      ansible_connection: local\n      ansible_python_interpreter: /usr/bin/python3\n',
    });
    const repo = (
      await admin.post(`/api/project/${p}/repositories`, {
        name: 'by-url',
        git_url: `file://${dir}`,
        git_branch: 'main',
        ssh_key_id: keyId,
      })
    ).json().id;
    const c = await inv({
      name: 'file',
      type: 'file',
      inventory: 'inv/hosts.ini',
      repository_id: repo,
      git_branch: 'staging',
    });
    const d = await inv({ name: 'url', type: 'url', inventory: `${web.url}/inv.yml` });
    const ws = await inv({ name: 'ws', type: 'terraform-workspace', inventory: 'default' });
    const s = await setupTemplate(
      admin,
      p,
      dir,
      { app: 'ansible', playbook: 'site.yml', inventory_ids: [a, b, c, d] },
      {
        secrets: [{ name: 'shared', secret: 'sup3r-s3cret', type: 'var', operation: 'create' }],
      },
    );

    const id = await runTask(admin, p, { template_id: s.templateId });
    const task = await waitForTask(admin, p, id, undefined, 90_000);
    const log = (await taskLog(admin, p, id)).join('\n');
    expect(task.status, log).toBe('success');
    for (const h of ['web-a', 'yaml-b', 'repo-host', 'url-host']) expect(log).toContain(`hello from ${h}`);
    expect(log).toContain('(staging)');

    const rows = await t()
      .db.db.selectFrom('inventory')
      .select(['id', 'last_read_at', 'last_error'])
      .where('id', 'in', [c, d])
      .execute();
    for (const r of rows)
      expect(r, JSON.stringify(r)).toMatchObject({ last_error: null, last_read_at: expect.any(String) });

    const view = await admin.get(`/api/project/${p}/hosts`);
    expect(view.statusCode, view.body).toBe(200);
    const body = view.json();
    expect(body.errors).toEqual([]);
    expect(body.hosts.map((h: { name: string }) => h.name).sort()).toEqual([
      'repo-host',
      'url-host',
      'web-a',
      'yaml-b',
    ]);
    expect(body.hosts.some((h: { inventory_id: number }) => h.inventory_id === ws)).toBe(false);
    const webA = body.hosts.find((h: { name: string }) => h.name === 'web-a');
    expect(webA).toMatchObject({ groups: ['web'], inventory_id: a, inventory_name: 'ini' });
    // Secret by its name, and by its value (a variable group's secret); others as they are.
    expect(webA.vars).toMatchObject({ db_password: '********', motd: '********', plain: 'visible' });
    expect(JSON.stringify(body)).not.toContain('hunter22');
    expect(JSON.stringify(body)).not.toContain('sup3r-s3cret');
    expect(webA.last_tasks).toHaveLength(1);
    expect(webA.last_tasks[0]).toMatchObject({
      task_id: id,
      template_id: s.templateId,
      template_name: 'tpl',
      status: 'success',
      ok: 1,
      failed: 0,
      unreachable: 0,
    });

    // The task history filtered by host: only tasks whose recap lists it.
    const only = await admin.get(`/api/project/${p}/tasks?host=url-host`);
    expect(only.json().map((x: { id: number }) => x.id)).toEqual([id]);
    expect((await admin.get(`/api/project/${p}/tasks?host=nobody`)).json()).toEqual([]);

    // A task's chosen inventory replaces the template's list.
    const put = await admin.put(`/api/project/${p}/templates/${s.templateId}`, {
      name: 'tpl',
      app: 'ansible',
      playbook: 'site.yml',
      repository_id: s.repositoryId,
      environment_id: s.environmentId,
      inventory_ids: [a, b, c, d],
      task_params: { allow_override_inventory: true },
    });
    expect(put.statusCode, put.body).toBe(204);
    const second = await runTask(admin, p, { template_id: s.templateId, inventory_id: b });
    const log2 = (await taskLog(admin, p, (await waitForTask(admin, p, second, undefined, 90_000), second))).join('\n');
    expect(log2).toContain('hello from yaml-b');
    expect(log2).not.toContain('hello from web-a');
    const after = (await admin.get(`/api/project/${p}/hosts`)).json();
    const yamlB = after.hosts.find((h: { name: string }) => h.name === 'yaml-b');
    expect(yamlB.last_tasks.map((r: { task_id: number }) => r.task_id)).toEqual([second, id]);
    expect(
      after.hosts
        .find((h: { name: string }) => h.name === 'web-a')
        .last_tasks.map((r: { task_id: number }) => r.task_id),
    ).toEqual([id]);
  }, 180_000);

  it('fails a run whose URL inventory cannot be read, records why, and lists it under errors', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const p = await createProject(admin);
    const dir = gitRepo({ 'site.yml': PLAYBOOK });
    const d = (
      await admin.post(`/api/project/${p}/inventory`, {
        name: 'gone',
        type: 'url',
        inventory: `${web.url}/gone?token=abc123`,
      })
    ).json().id;
    const s = await setupTemplate(admin, p, dir, { app: 'ansible', playbook: 'site.yml', inventory_id: d });
    const id = await runTask(admin, p, { template_id: s.templateId });
    const task = await waitForTask(admin, p, id, undefined, 60_000);
    const log = (await taskLog(admin, p, id)).join('\n');
    expect(task.status).toBe('error');
    expect(log).toMatch(/The inventory could not be fetched from http:\/\/127\.0\.0\.1:\d+\/gone/);
    expect(log).not.toContain('abc123');
    const row = await t()
      .db.db.selectFrom('inventory')
      .select(['last_error', 'last_read_at'])
      .where('id', '=', d)
      .executeTakeFirstOrThrow();
    expect(row.last_error).toMatch(/404/);
    expect(row.last_read_at).toBeNull();
    const view = (await admin.get(`/api/project/${p}/hosts`)).json();
    expect(view.hosts).toEqual([]);
    expect(view.errors).toEqual([{ inventory_id: d, inventory_name: 'gone', error: expect.stringMatching(/404/) }]);
  }, 90_000);

  it("lists a file of the template's own repository from the template that ran last among those that use it", async () => {
    const admin = await signedInUser(t(), { admin: true });
    const p = await createProject(admin);
    const first = gitRepo({ 'site.yml': PLAYBOOK });
    execFileSync('git', ['checkout', '-q', '-b', 'staging'], { cwd: first });
    commitFiles(first, { 'inv/hosts.ini': `[a]\nfrom-a-staging ${LOCAL}\n` });
    execFileSync('git', ['checkout', '-q', 'main'], { cwd: first });
    const second = gitRepo({ 'site.yml': PLAYBOOK, 'inv/hosts.ini': `[b]\nfrom-b ${LOCAL}\n` });
    const own = (
      await admin.post(`/api/project/${p}/inventory`, { name: 'own', type: 'file', inventory: 'inv/hosts.ini' })
    ).json().id as number;
    const view = async () => {
      const r = await admin.get(`/api/project/${p}/hosts`);
      expect(r.statusCode, r.body).toBe(200);
      return r.json<{ hosts: Array<{ name: string; groups: string[] }>; errors: unknown[] }>();
    };
    // No template uses it: said, and not recorded as a failed read.
    expect((await view()).errors).toEqual([
      { inventory_id: own, inventory_name: 'own', error: expect.stringMatching(/no template uses it/) },
    ]);
    // One template (at its branch): its repository's file, at that branch. By URL: a local path is
    // read as it is, at no branch.
    const keyId = (await admin.post(`/api/project/${p}/keys`, { name: 'none', type: 'none' })).json().id;
    const environmentId = (
      await admin.post(`/api/project/${p}/environment`, { name: 'env', json: '{}', env: '{}' })
    ).json().id;
    const template = async (name: string, dir: string, extra: object = {}) => {
      const repository = (
        await admin.post(`/api/project/${p}/repositories`, {
          name,
          git_url: `file://${dir}`,
          git_branch: 'main',
          ssh_key_id: keyId,
        })
      ).json().id;
      const made = await admin.post(`/api/project/${p}/templates`, {
        name,
        app: 'ansible',
        playbook: 'site.yml',
        repository_id: repository,
        environment_id: environmentId,
        inventory_id: own,
        ...extra,
      });
      expect(made.statusCode, made.body).toBe(201);
      return made.json().id as number;
    };
    await template('a', first, { git_branch: 'staging' });
    expect((await view()).hosts.map((h) => [h.name, h.groups])).toEqual([['from-a-staging', ['a']]]);
    // Another one, not run yet: still the first by name; once it ran, its repository's.
    const b = await template('b', second);
    expect((await view()).hosts.map((h) => h.name)).toEqual(['from-a-staging']);
    const id = await runTask(admin, p, { template_id: b });
    expect((await waitForTask(admin, p, id, undefined, 90_000)).status, (await taskLog(admin, p, id)).join('\n')).toBe(
      'success',
    );
    const after = await view();
    expect(after.errors).toEqual([]);
    expect(after.hosts.map((h) => h.name)).toEqual(['from-b']);
    const row = await t()
      .db.db.selectFrom('inventory')
      .select(['last_error'])
      .where('id', '=', own)
      .executeTakeFirstOrThrow();
    expect(row.last_error).toBeNull();
  }, 120_000);

  it("reuses each inventory's listing for a while, and lists one again once it is changed", async () => {
    const admin = await signedInUser(t(), { admin: true });
    const p = await createProject(admin);
    web.route(`/cached-${p}.ini`, (res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('[remote]\nurl-cached\n');
    });
    const inv = async (body: Record<string, unknown>) => {
      const r = await admin.post(`/api/project/${p}/inventory`, body);
      expect(r.statusCode, r.body).toBe(201);
      return r.json().id as number;
    };
    const ini = await inv({ name: 'ini', type: 'static', inventory: '[web]\nweb-1\n' });
    await inv({ name: 'url', type: 'url', inventory: `${web.url}/cached-${p}.ini` });
    const names = async () =>
      ((await admin.get(`/api/project/${p}/hosts`)).json().hosts as Array<{ name: string }>).map((h) => h.name).sort();
    const listing = t().app.services.inventoryListing;
    const spy = vi.spyOn(listing, 'list');
    try {
      expect(await names()).toEqual(['url-cached', 'web-1']);
      expect(spy).toHaveBeenCalledTimes(2);
      const fetched = web.hits.filter((h) => h.startsWith(`/cached-${p}`)).length;
      expect(fetched).toBe(1);
      // A reload within the window: neither listed nor fetched again.
      expect(await names()).toEqual(['url-cached', 'web-1']);
      expect(spy).toHaveBeenCalledTimes(2);
      expect(web.hits.filter((h) => h.startsWith(`/cached-${p}`)).length).toBe(fetched);
      // An edited inventory is listed again at once; the other one is not.
      const put = await admin.put(`/api/project/${p}/inventory/${ini}`, {
        name: 'ini',
        type: 'static',
        inventory: '[web]\nweb-2\n',
      });
      expect(put.statusCode, put.body).toBe(204);
      expect(await names()).toEqual(['url-cached', 'web-2']);
      expect(spy).toHaveBeenCalledTimes(3);
      expect(spy.mock.calls[2]?.[1]).toBe(ini);
    } finally {
      spy.mockRestore();
    }
  }, 60_000);

  it('lets project members read the hosts view, and nobody else', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const p = await createProject(admin);
    await admin.post(`/api/project/${p}/inventory`, { name: 'ini', type: 'static', inventory: 'lonely' });
    const guest = await signedInUser(t());
    const stranger = await signedInUser(t());
    await addMember(t(), p, guest.id, 'guest');
    const seen = await guest.get(`/api/project/${p}/hosts`);
    expect(seen.statusCode).toBe(200);
    expect(seen.json().hosts.map((h: { name: string }) => h.name)).toEqual(['lonely']);
    expect([403, 404]).toContain((await stranger.get(`/api/project/${p}/hosts`)).statusCode);
    expect([403, 404]).toContain((await stranger.get(`/api/project/${p}/tasks?host=lonely`)).statusCode);
  }, 60_000);
});
