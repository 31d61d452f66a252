import { BACKUP_FORMAT, type ProjectBackup } from '@gantry/contracts';
import { describe, expect, it } from 'vitest';
import { addMember, createProject, engines, signedInUser, useTestApp, type Caller } from '../../test/harness.js';
import { fullProject, SECRETS } from '../../test/full-project.js';

/** The private key's base64 lines: any one of them in a backup would be a leak. */
function keyLines(pem: string): string[] {
  return pem.split('\n').filter((l) => l.length > 20 && !l.startsWith('-----'));
}

/** Gantry's own format, as Gantry's console asks for it (without `format` the answer is the combined file). */
const download = async (c: Caller, p: number) => c.get(`/api/project/${p}/backup?format=gantry`);

describe.each(engines)('project backup and restore ($name)', (engine) => {
  const t = useTestApp(engine);

  it('exports everything but secrets, and restores an equal project with empty keys', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const src = await fullProject(admin);
    const res = await download(admin, src.p);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers['content-disposition']).toBe(
      `attachment; filename="gantry-project-${src.p}-Backup-source.json"`,
    );
    const text = res.body;
    for (const s of [...Object.values(SECRETS), ...keyLines(src.privateKey), src.alias]) expect(text).not.toContain(s);
    expect(text).not.toMatch(/PRIVATE KEY|root-login|"login":\s*"hook"/);

    const backup = JSON.parse(text) as ProjectBackup;
    expect(backup.meta).toMatchObject({
      format: BACKUP_FORMAT,
      version: 1,
      name: 'Backup source',
      type: '',
      alert: false,
      max_parallel_tasks: 0,
    });
    expect(backup.keys).toEqual([
      { id: 1, name: 'become', type: 'login_password' },
      { id: 2, name: 'deploy ssh', type: 'ssh', ssh: { login: 'deployer' } },
      { id: 3, name: 'hook secret', type: 'login_password' },
      { id: 4, name: 'none', type: 'none' },
    ]);
    expect(backup.environments[0]!.secrets).toHaveLength(2);
    expect(backup.environments[0]!.secrets).toEqual(
      expect.arrayContaining([
        { name: 'api_token', type: 'var' },
        { name: 'DB_PASSWORD', type: 'env' },
      ]),
    );
    const tpl = (name: string) => backup.templates.find((x) => x.name === name)!;
    expect(tpl('Deploy').build_template_id).toBe(tpl('Build').id);
    expect(tpl('Playbook')).toMatchObject({
      view_id: 1,
      allow_extra_vars_in_task: true,
      inventory_id: backup.inventories.find((i) => i.name === 'hosts')!.id,
      vaults: [
        { name: 'prod', vault_key_id: 1 },
        { type: 'script', script: 'vault/get-client.py' },
      ],
    });
    expect(backup.integrations[0]).toMatchObject({
      auth_secret_id: 3,
      matchers: [{ name: 'main only' }],
      extract_values: [{ variable: 'COMMIT' }],
    });
    expect(backup.integrations[0]).not.toHaveProperty('aliases');
    expect((await admin.get(`/api/project/${src.p}/events/last`)).json()[0].description).toBe(
      'Project Backup source exported',
    );

    const restored = await admin.post('/api/projects/restore', {
      ...backup,
      meta: { ...backup.meta, name: 'Restored copy' },
    });
    expect(restored.statusCode).toBe(201);
    const result = restored.json();
    expect(result).toEqual({
      id: expect.any(Number),
      projectName: 'Restored copy',
      emptyKeys: 3,
      // Every secret that came back empty is named, keys and variable-group secrets alike.
      emptySecrets: [
        { kind: 'key', name: 'become' },
        { kind: 'key', name: 'deploy ssh' },
        { kind: 'key', name: 'hook secret' },
        ...backup.environments[0]!.secrets.map((x) => ({ kind: 'secret', group: backup.environments[0]!.name, name: x.name })),
      ],
      unmapped: [],
    });
    const q = result.id as number;
    expect((await admin.get(`/api/project/${q}/role`)).json()).toEqual({ role: 'owner', permissions: 15 });
    expect(
      (await admin.get(`/api/project/${q}/keys`))
        .json()
        .map((k: { name: string; type: string; empty?: boolean }) => [k.name, k.type, !!k.empty]),
    ).toEqual([
      ['become', 'login_password', true],
      ['deploy ssh', 'ssh', true],
      ['hook secret', 'login_password', true],
      ['none', 'none', false],
    ]);
    // The ssh key's login is not a secret: it comes back with the key.
    const deploy = (await admin.get(`/api/project/${q}/keys`)).json().find((k: { name: string }) => k.name === 'deploy ssh');
    expect(deploy.ssh.login).toBe('deployer');
    expect(
      (
        await admin.get(
          `/api/project/${q}/integrations/${(await admin.get(`/api/project/${q}/integrations`)).json()[0].id}/aliases`,
        )
      ).json(),
    ).toEqual([]);

    // The restored project's own backup is the same document: same objects, same references.
    const again = JSON.parse((await download(admin, q)).body) as ProjectBackup;
    // Except what a restore leaves out on purpose: active schedules (the ssh login, not a secret, stays).
    const comparable = (b: ProjectBackup) => ({
      ...b,
      meta: { ...b.meta, exported: '', name: '' },
      schedules: b.schedules.map((s) => ({ ...s, active: false })),
    });
    expect(comparable(again)).toEqual(comparable(backup));
    expect(backup.schedules.map((s) => s.active)).toEqual([true, true]);
    expect(again.schedules.map((s) => s.active)).toEqual([false, false]);
    const events = (await admin.get(`/api/project/${q}/events/last`))
      .json()
      .map((e: { description: string }) => e.description);
    expect(events).toContain('Project Restored copy restored from a backup (3 empty keys)');
  });

  it('lets owners and admins back up and clear the cache; others get 403, outsiders 404', async () => {
    const ctx = t();
    const owner = await signedInUser(ctx, { admin: true });
    const p = await createProject(owner);
    const admin = await signedInUser(ctx, { admin: true });
    expect((await download(admin, p)).statusCode).toBe(200);
    expect((await admin.del(`/api/project/${p}/cache`)).statusCode).toBe(204);
    for (const role of ['manager', 'task_runner', 'guest'] as const) {
      const u = await signedInUser(ctx);
      await addMember(ctx, p, u.id, role);
      expect((await download(u, p)).statusCode, role).toBe(403);
      expect((await u.del(`/api/project/${p}/cache`)).statusCode, role).toBe(403);
    }
    const outsider = await signedInUser(ctx);
    expect((await download(outsider, p)).json()).toEqual({ error: 'Project not found', code: 'project_not_found' });
    expect((await outsider.del(`/api/project/${p}/cache`)).statusCode).toBe(404);
    expect((await download(owner, 999_999)).statusCode).toBe(404);
  });

  it('restores only for users who may create projects', async () => {
    const ctx = t();
    const admin = await signedInUser(ctx, { admin: true });
    const backup = JSON.parse((await download(admin, await createProject(admin, 'Small'))).body);
    const user = await signedInUser(ctx);
    const before = (await admin.get('/api/projects')).json().length;
    expect((await user.post('/api/projects/restore', backup)).statusCode).toBe(403);
    expect((await user.post('/api/projects/restore', { junk: true })).statusCode).toBe(403);
    expect((await admin.get('/api/projects')).json()).toHaveLength(before);
  });

  it('answers 400 for malformed backups and creates nothing', async () => {
    const ctx = t();
    const admin = await signedInUser(ctx, { admin: true });
    const src = await fullProject(admin);
    const good = JSON.parse((await download(admin, src.p)).body) as ProjectBackup;
    const projects = async () => (await admin.get('/api/projects')).json().length;
    const before = await projects();
    const count = async (table: 'event' | 'access_key' | 'template') =>
      Number(
        (
          await ctx.db.db
            .selectFrom(table)
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    const rowsBefore = [await count('event'), await count('access_key'), await count('template')];
    const bad = async (body: unknown, error: string | RegExp) => {
      const r = await admin.post('/api/projects/restore', body);
      expect(r.statusCode, r.body).toBe(400);
      expect(r.json().error).toMatch(error);
    };

    await bad({ hello: 'world' }, 'Invalid backup: meta: ');
    await bad([], /^Invalid backup/);
    await bad(
      { ...good, meta: { ...good.meta, format: 'something-else' } },
      'Invalid backup: meta.format: Not a Gantry project backup',
    );
    await bad({ ...good, meta: { ...good.meta, version: 99 } }, /meta\.version: Unsupported backup version/);
    await bad({ ...good, meta: { ...good.meta, name: ' ' } }, 'Invalid backup: meta.name: Project name is required');
    await bad(
      { ...good, keys: [...good.keys, { ...good.keys[0], id: good.keys[1]!.id }] },
      'Invalid backup: keys id 2 is used twice',
    );
    await bad({ ...good, keys: [{ id: 1, name: 'k', type: 'rsa' }] }, /^Invalid backup: keys\[0\]\.type/);
    await bad({ ...good, templates: 'none' }, /^Invalid backup: templates: /);
    await bad(
      { ...good, inventories: [{ ...good.inventories[0], become_key_id: 'become' }] },
      /^Invalid backup: inventories\[0\]\.become_key_id: /,
    );

    expect(await projects()).toBe(before);
    expect([await count('event'), await count('access_key'), await count('template')]).toEqual(rowsBefore);
  });

  it('restores the rest when an object or a reference does not fit, and lists each in unmapped', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const src = await fullProject(admin);
    const good = JSON.parse((await download(admin, src.p)).body) as ProjectBackup;
    const id = (list: Array<{ id: number; name?: string; title?: string }>, name: string) =>
      list.find((x) => (x.name ?? x.title) === name)!.id;
    const withTemplate = (name: string, patch: object) =>
      good.templates.map((x) => (x.name === name ? { ...x, ...patch } : x));
    const odd = {
      ...good,
      // Gantry's rules refuse the URL: the repository is not restored, nor what needs it.
      repositories: good.repositories.map((r) => (r.name === 'app repo' ? { ...r, git_url: 'ext::sh -c evil' } : r)),
      templates: withTemplate('Deploy', { build_template_id: 77 }).map((x) =>
        x.name === 'Infra' ? { ...x, app: 'no-such-app', playbook: 'x.sh' } : x.name === 'Build' ? { ...x, view_id: 99 } : x,
      ),
      schedules: good.schedules.map((x) => (x.name === 'on commit' ? { ...x, cron_format: 'not a cron' } : x)),
      integrations: [{ ...good.integrations[0]!, auth_secret_id: id(good.keys, 'none') }],
    };
    const res = await admin.post('/api/projects/restore', odd);
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toEqual({
      id: expect.any(Number),
      projectName: 'Backup source',
      emptyKeys: 3,
      emptySecrets: expect.any(Array),
      unmapped: [
        'Repository "app repo": git_url: Incorrect URL; not restored',
        'Template "Build": view #99 is not in the backup; left out',
        'Template "Infra": app: App not found; not restored',
        'Template "Playbook": repository "app repo" was left out; not restored',
        'Template "Deploy": build template #77 is not in the backup; not restored',
        'Schedule "nightly": template "Playbook" was left out; not restored',
        expect.stringMatching(/^Schedule "on commit": .*; not restored$/),
        'Integration "push hook": secret "none" is of type none, not a login with password; not restored',
      ],
    });
    const q = res.json().id as number;
    const names = async (path: string) =>
      (await admin.get(`/api/project/${q}/${path}`)).json().map((x: { name: string }) => x.name);
    expect(await names('repositories')).toEqual(['local repo']);
    expect(await names('templates')).toEqual(['Build']);
    expect(await names('schedules')).toEqual([]);
    expect(await names('integrations')).toEqual([]);
  });

  it('takes a large backup, up to 10 MB', async () => {
    const admin = await signedInUser(t(), { admin: true });
    // Descriptions are limited to 4 KiB: the bulk is in static inventories (up to 1 MiB each).
    const inventory = (id: number) => ({ id, name: `i${id}`, type: 'static', inventory: 'x'.repeat(1_000_000), ssh_key_id: 1 });
    const doc = {
      meta: { format: BACKUP_FORMAT, version: 1, name: 'Big' },
      keys: [{ id: 1, name: 'k', type: 'none' }],
      repositories: [{ id: 1, name: 'r', git_url: '/srv/r', ssh_key_id: 1 }],
      inventories: [inventory(1), inventory(2)],
      environments: [{ id: 1, name: 'e' }],
      templates: [{ id: 1, name: 't', app: 'bash', playbook: 'a.sh', repository_id: 1, environment_id: 1 }],
    };
    const res = await admin.post('/api/projects/restore', doc);
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({ projectName: 'Big', emptyKeys: 0 });
    const tooBig = await admin.post('/api/projects/restore', { ...doc, pad: 'x'.repeat(11 * 1024 * 1024) });
    expect(tooBig.statusCode).toBe(413);
  });
});

describe.each(engines)('restore by a non-admin allowed to create projects ($name)', (engine) => {
  const t = useTestApp(engine, { GANTRY_NON_ADMIN_CAN_CREATE_PROJECT: 'true' });

  it('makes the caller the owner of the restored project', async () => {
    const user = await signedInUser(t());
    const p = await createProject(user, 'Mine');
    const backup = JSON.parse((await download(user, p)).body);
    const res = await user.post('/api/projects/restore', backup);
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ projectName: 'Mine', emptyKeys: 0 });
    const listed = (await user.get('/api/projects')).json().filter((x: { name: string }) => x.name === 'Mine');
    expect(listed.map((x: { role: string }) => x.role)).toEqual(['owner', 'owner']);
  });
});
