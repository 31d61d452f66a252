import { BACKUP_FORMAT } from '@gantry/contracts';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { LOCAL_REPOSITORY_REFUSED } from '../platform/local-paths.js';
import { engines, signedInUser, useTestApp, type Caller, type TestContext } from '../test/harness.js';
import { scriptClient, scriptHeaders } from './script-client.js';

// Issue 20, item 4: a restore never fails whole for one odd object. A reference that does not fit
// (of the wrong kind of key, naming nothing, naming something left out) is left out and listed in
// `unmapped`; an object Gantry's rules refuse is not restored and listed; only a malformed file is
// a 400.

/** The `ProjectBackup` example of Semaphore's api-docs.yml (the body of POST /projects/restore), as published. */
const API_DOCS_EXAMPLE = new URL('../modules/backup/fixtures/semaphore-api-docs-example.json', import.meta.url);
const apiDocsExample = (): Record<string, unknown> => JSON.parse(fs.readFileSync(API_DOCS_EXAMPLE, 'utf8'));

interface Row {
  id: number;
  name: string;
  title?: string;
}

/** The restored project's objects of one kind, and one of them by name. */
async function listed(c: Caller, p: number, path: string) {
  const items = (await c.get(`/api/project/${p}/${path}`)).json() as Array<Row & Record<string, unknown>>;
  const byName = (name: string) => {
    const found = items.find((x) => (x.name ?? x.title) === name);
    if (!found) throw new Error(`${path}: no ${name} in ${items.map((x) => x.name ?? x.title).join(', ')}`);
    return found;
  };
  return { names: items.map((x) => x.name ?? x.title), byName };
}

async function counts(ctx: TestContext) {
  const n = async (table: 'project' | 'access_key' | 'inventory' | 'template' | 'event') =>
    Number(
      (
        await ctx.db.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  return [await n('project'), await n('access_key'), await n('inventory'), await n('template'), await n('event')];
}

describe.each(engines)('restore with odd objects ($name)', (engine) => {
  const t = useTestApp(engine);

  it("restores Semaphore's api-docs example as published, listing the odd references", async () => {
    const admin = await signedInUser(t(), { admin: true });
    const doc = apiDocsExample();
    // The example as published: its inventory "Build" has the "None" key as its become key.
    expect((doc.inventories as Array<{ name: string; become_key: string }>)[0]).toMatchObject({
      name: 'Build',
      become_key: 'None',
    });

    const res = await admin.post('/api/projects/restore', doc);
    expect([200, 201], res.body).toContain(res.statusCode);
    expect(res.json()).toEqual({
      id: expect.any(Number),
      projectName: 'homelab',
      emptyKeys: 1,
      emptySecrets: [{ kind: 'key', name: 'Vault Password' }],
      unmapped: [
        'Inventory "Build": become key "None" is of type none, not a login with password; left out',
        // A file inventory needs a path in Gantry; the example's two have none.
        'Inventory "Dev": inventory: Path is required; not restored',
        'Inventory "Prod": inventory: Path is required; not restored',
      ],
    });
    const p = res.json().id as number;
    expect((await admin.get('/api/projects')).json().map((x: { name: string }) => x.name)).toContain('homelab');
    expect((await admin.get(`/api/project/${p}/`)).json()).toMatchObject({
      name: 'homelab',
      alert: true,
      alert_chat: 'Test',
    });
    const keys = await listed(admin, p, 'keys');
    const invs = await listed(admin, p, 'inventory');
    expect(invs.names).toEqual(['Build']);
    expect(invs.byName('Build')).toMatchObject({
      type: 'static',
      ssh_key_id: keys.byName('None').id,
      become_key_id: null,
    });
    const tpls = await listed(admin, p, 'templates');
    expect(tpls.byName('Build')).toMatchObject({
      type: 'build',
      app: 'ansible',
      start_version: '1.0.0',
      inventory_id: invs.byName('Build').id,
      repository_id: (await listed(admin, p, 'repositories')).byName('Demo').id,
      view_id: (await listed(admin, p, 'views')).byName('Build').id,
    });
    expect((await admin.get(`/api/project/${p}/schedules`)).json()).toMatchObject([
      { name: 'Build', cron_format: '* * * * *', active: false, template_id: tpls.byName('Build').id },
    ]);
  });

  it("drops a become key that is an ssh key, in Semaphore's backup and in Gantry's", async () => {
    const admin = await signedInUser(t(), { admin: true });
    const semaphore = {
      meta: { name: 'Become ssh (Semaphore)' },
      keys: [
        { name: 'deploy', type: 'ssh' },
        { name: 'None', type: 'none' },
      ],
      inventories: [{ name: 'web', type: 'static', inventory: 'web1', ssh_key: 'deploy', become_key: 'deploy' }],
    };
    const gantry = {
      meta: { format: BACKUP_FORMAT, version: 1, name: 'Become ssh (Gantry)' },
      keys: [
        { id: 1, name: 'deploy', type: 'ssh', ssh: { login: 'ops' } },
        { id: 2, name: 'None', type: 'none' },
      ],
      inventories: [{ id: 1, name: 'web', type: 'static', inventory: 'web1', ssh_key_id: 1, become_key_id: 1 }],
    };
    for (const doc of [semaphore, gantry]) {
      const res = await admin.post('/api/projects/restore', doc);
      expect(res.statusCode, res.body).toBe(201);
      expect(res.json()).toMatchObject({
        projectName: doc.meta.name,
        emptyKeys: 1,
        unmapped: ['Inventory "web": become key "deploy" is of type ssh, not a login with password; left out'],
      });
      const p = res.json().id as number;
      const keys = await listed(admin, p, 'keys');
      expect((await listed(admin, p, 'inventory')).byName('web')).toMatchObject({
        inventory: 'web1',
        ssh_key_id: keys.byName('deploy').id,
        become_key_id: null,
      });
    }
  });

  it('applies the same rule to every kind of reference', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const doc = {
      meta: { name: 'Every reference' },
      keys: [
        { name: 'deploy', type: 'ssh' },
        { name: 'None', type: 'none' },
        { name: 'login', type: 'login_password' },
      ],
      repositories: [
        { name: 'app', git_url: 'https://example.com/acme/app.git', git_branch: 'main', ssh_key: 'deploy' },
        { name: 'lost key', git_url: 'https://example.com/acme/lost.git', git_branch: 'main', ssh_key: 'Missing' },
      ],
      inventories: [
        { name: 'ws', type: 'terraform-workspace', inventory: 'prod', ssh_key: 'None', become_key: 'login' },
        { name: 'web', type: 'static', inventory: 'web1', ssh_key: 'deploy', become_key: 'login' },
      ],
      environments: [{ name: 'vars', json: '{}', env: '{}' }],
      views: [{ title: 'Ops', position: 0 }],
      templates: [
        {
          name: 'Build',
          type: 'build',
          app: 'bash',
          playbook: 'b.sh',
          repository: 'app',
          environment: 'vars',
          start_version: '1',
        },
        {
          name: 'Task',
          app: 'bash',
          playbook: 't.sh',
          repository: 'lost key',
          environment: 'vars',
          view: 'Ops',
          vaults: [
            { name: 'ssh', type: 'password', vault_key: 'deploy' },
            { name: 'ok', type: 'password', vault_key: 'login' },
          ],
        },
        {
          name: 'Deploy',
          type: 'deploy',
          app: 'bash',
          playbook: 'd.sh',
          repository: 'app',
          environment: 'vars',
          build_template: 'Task',
        },
        { name: 'Odd app', app: 'cobol', playbook: 'x', repository: 'app', environment: 'vars' },
        { name: 'Plan', app: 'terraform', repository: 'app', environment: 'vars', inventory: 'ws' },
      ],
      schedules: [
        { name: 'nightly', cron_format: '0 3 * * *', template: 'Deploy', active: true },
        { name: 'hourly', cron_format: '0 * * * *', template: 'Task', active: true },
        { name: 'once', type: 'run_at', cron_format: '', template: 'Task', active: true },
      ],
      integrations: [
        { name: 'signed', template: 'Build', auth_method: 'hmac', auth_secret: 'None' },
        { name: 'open', template: 'Build', auth_method: '', auth_secret: 'deploy' },
        { name: 'token', template: 'Task', auth_method: 'token', auth_header: 'X-Token', auth_secret: 'login' },
      ],
    };
    const res = await admin.post('/api/projects/restore', doc);
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().unmapped).toEqual([
      // Found by the Semaphore import (names that name nothing, kinds Gantry has not)...
      'Repository "lost key": key "Missing" is not in the backup; uses the "none" key instead',
      'Schedule "once": type "run_at" is not supported (Gantry\'s schedules are cron only); left out',
      // ...and by the restore (references of the wrong kind, objects Gantry's rules refuse).
      'Inventory "ws": become key "login" is not for a workspace; left out',
      'Template "Task": vault password key "deploy" is of type ssh, not a login with password; vault "ssh" left out',
      'Template "Odd app": app: App not found; not restored',
      'Template "Deploy": build template "Task" is not a build template; not restored',
      'Schedule "nightly": template "Deploy" was left out; not restored',
      'Integration "signed": secret "None" is of type none, not a login with password; not restored',
    ]);
    const p = res.json().id as number;
    const keys = await listed(admin, p, 'keys');
    const invs = await listed(admin, p, 'inventory');
    expect(invs.byName('ws')).toMatchObject({ become_key_id: null });
    expect(invs.byName('web')).toMatchObject({ become_key_id: keys.byName('login').id });
    expect((await listed(admin, p, 'repositories')).byName('lost key')).toMatchObject({
      ssh_key_id: keys.byName('None').id,
    });
    const tpls = await listed(admin, p, 'templates');
    expect(tpls.names.sort()).toEqual(['Build', 'Plan', 'Task']);
    expect(tpls.byName('Task')).toMatchObject({
      view_id: (await listed(admin, p, 'views')).byName('Ops').id,
      vaults: [{ name: 'ok', type: 'password', vault_key_id: keys.byName('login').id }],
    });
    expect((await listed(admin, p, 'schedules')).names).toEqual(['hourly']);
    const integrations = await listed(admin, p, 'integrations');
    expect(integrations.names.sort()).toEqual(['open', 'token']);
    // Without an authentication method a secret means nothing: dropped without a word.
    expect(integrations.byName('open')).toMatchObject({ auth_method: '', auth_secret_id: null });
    expect(integrations.byName('token')).toMatchObject({ auth_secret_id: keys.byName('login').id });
  });

  it("leaves out a repository Gantry's rules refuse (a task folder as its path), and what needs it", async () => {
    const admin = await signedInUser(t(), { admin: true });
    const res = await admin.post('/api/projects/restore', {
      meta: { format: BACKUP_FORMAT, version: 1, name: 'Local path' },
      keys: [{ id: 1, name: 'k', type: 'none' }],
      repositories: [
        { id: 1, name: 'r', git_url: path.join(t().config.taskDir, 'task_12', 'repository'), ssh_key_id: 1 },
        { id: 2, name: 'ok', git_url: 'https://example.com/acme/ok.git', git_branch: 'main', ssh_key_id: 1 },
      ],
      environments: [{ id: 1, name: 'e' }],
      templates: [
        { id: 1, name: 'uses r', app: 'bash', playbook: 'a.sh', repository_id: 1, environment_id: 1 },
        { id: 2, name: 'uses ok', app: 'bash', playbook: 'a.sh', repository_id: 2, environment_id: 1 },
      ],
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().unmapped).toEqual([
      `Repository "r": git_url: ${LOCAL_REPOSITORY_REFUSED}; not restored`,
      'Template "uses r": repository "r" was left out; not restored',
    ]);
    const p = res.json().id as number;
    expect((await listed(admin, p, 'repositories')).names).toEqual(['ok']);
    expect((await listed(admin, p, 'templates')).names).toEqual(['uses ok']);
  });

  it('answers 400 with a clear message for a malformed file, and creates nothing', async () => {
    const ctx = t();
    const admin = await signedInUser(ctx, { admin: true });
    const script = await scriptClient(ctx, admin);
    const before = await counts(ctx);
    const bad = async (payload: string, error: string | RegExp) => {
      const r = await ctx.app.inject({
        method: 'POST',
        url: '/api/projects/restore',
        headers: scriptHeaders(script.token),
        payload,
      });
      expect(r.statusCode, r.body).toBe(400);
      expect(r.json().error).toMatch(error);
    };
    const example = apiDocsExample();
    const inventories = example.inventories as Array<Record<string, unknown>>;

    await bad('{"meta": {"name": "cut short"', /JSON/);
    await bad('[]', /^Invalid backup: /);
    await bad('"a backup"', /^Invalid backup: /);
    await bad(JSON.stringify({ ...example, templates: {} }), /^Invalid Semaphore backup: templates: /);
    await bad(
      JSON.stringify({ ...example, inventories: [{ ...inventories[0], become_key: 7 }] }),
      /^Invalid Semaphore backup: inventories\[0\]\.become_key: /,
    );
    await bad(JSON.stringify({ ...example, meta: 'homelab' }), /^Invalid backup: meta: /);
    await bad(
      JSON.stringify({
        meta: { format: BACKUP_FORMAT, version: 1, name: 'x' },
        keys: [{ id: 1, name: 'k', type: 'none' }],
        inventories: [{ id: 1, name: 'web', type: 'static', ssh_key_id: 1, become_key_id: 'k' }],
      }),
      /^Invalid backup: inventories\[0\]\.become_key_id: /,
    );
    expect(await counts(ctx)).toEqual(before);
  });
});
