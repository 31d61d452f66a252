import type { ProjectBackup } from '@gantry/contracts';
import { describe, expect, it } from 'vitest';
import { semaphoreBackupSchema } from '../modules/backup/semaphore-format.js';
import { fromSemaphore } from '../modules/backup/semaphore-import.js';
import { engines, signedInUser, useTestApp, type Caller } from '../test/harness.js';
import { fullProject, SECRETS } from '../test/full-project.js';

// Issue 20, item 8: the file GET /project/{id}/backup answers without `format` (the URL behind
// Semaphore's Backup button) restores in both products: Semaphore's format, with what Semaphore's
// format has no place for in a top-level `gantry` member that Semaphore ignores.

type Json = Record<string, unknown>;

const backupOf = async (c: Caller, p: number, format?: string) =>
  c.get(`/api/project/${p}/backup${format ? `?format=${format}` : ''}`);

/** The top-level members of Semaphore's BackupFormat (services/project/types.go) that Gantry writes. */
const SEMAPHORE_MEMBERS = [
  'meta',
  'templates',
  'repositories',
  'keys',
  'views',
  'inventories',
  'environments',
  'schedules',
  'integrations',
  'integration_aliases',
];

/**
 * The JSON kind of each field Semaphore's restore reads from its struct, as far as Gantry writes
 * them: Semaphore fails a restore on a known field of another kind (its unmarshal expects a string
 * for a string field...); null is skipped. Fields it does not know it ignores.
 */
const S = 'string';
const B = 'boolean';
const N = 'number';
const A = 'array';
const O = 'object';
const SHAPES: Record<string, Record<string, string>> = {
  meta: { name: S, alert: B, alert_chat: S, max_parallel_tasks: N, type: S },
  keys: { name: S, type: S },
  repositories: { name: S, git_url: S, git_branch: S, ssh_key: S },
  inventories: { name: S, inventory: S, type: S, ssh_key: S, become_key: S },
  environments: { name: S, json: S, env: S, password: S },
  views: { title: S, position: N },
  templates: {
    name: S,
    description: S,
    type: S,
    app: S,
    playbook: S,
    arguments: S,
    inventory: S,
    repository: S,
    environment: S,
    view: S,
    build_template: S,
    start_version: S,
    git_branch: S,
    runner_tag: S,
    cron: S,
    autorun: B,
    allow_override_args_in_task: B,
    allow_override_branch_in_task: B,
    suppress_success_alerts: B,
    survey_vars: A,
    vaults: A,
    task_params: O,
  },
  vaults: { name: S, type: S, script: S, vault_key: S },
  schedules: { name: S, cron_format: S, active: B, template: S, checkable_repository: S },
  integrations: {
    name: S,
    template: S,
    auth_method: S,
    auth_header: S,
    auth_secret: S,
    searchable: B,
    task_params: O,
    matchers: A,
    extract_values: A,
    aliases: A,
  },
};

const kindOf = (v: unknown) => (Array.isArray(v) ? A : v === null ? 'null' : typeof v);

/** Where a document breaks Semaphore's restore: a field of the wrong kind, or a name that names nothing. */
function semaphoreProblems(doc: Json): string[] {
  const problems: string[] = [];
  const check = (what: string, item: Json, shape: Record<string, string>) => {
    for (const [field, kind] of Object.entries(shape)) {
      const v = item[field];
      if (v !== null && v !== undefined && kindOf(v) !== kind)
        problems.push(`${what}.${field} is ${kindOf(v)}, not ${kind}`);
    }
  };
  check('meta', doc.meta as Json, SHAPES.meta!);
  const lists: Record<string, Json[]> = {};
  for (const member of SEMAPHORE_MEMBERS.slice(1)) {
    if (!Array.isArray(doc[member])) problems.push(`${member} is not a list`);
    lists[member] = (doc[member] ?? []) as Json[];
    lists[member].forEach((item, i) => {
      if (member === 'integration_aliases') return void (typeof item !== 'string' && problems.push(`${member}[${i}]`));
      check(`${member}[${i}]`, item, SHAPES[member]!);
      if (member === 'templates')
        ((item.vaults ?? []) as Json[]).forEach((v, j) => check(`templates[${i}].vaults[${j}]`, v, SHAPES.vaults!));
    });
  }
  // Semaphore's restore (services/project/restore.go): each name a reference gives must be listed.
  const names = (member: string, field = 'name') => new Set(lists[member]!.map((x) => x[field]));
  const keys = names('keys');
  const must = (what: string, value: unknown, set: Set<unknown>) => {
    if (value !== null && value !== undefined && !set.has(value))
      problems.push(`${what} names ${String(value)}, which is not listed`);
  };
  lists.repositories!.forEach((r, i) => {
    if (!keys.has(r.ssh_key)) problems.push(`repositories[${i}] has no key`);
  });
  lists.inventories!.forEach((inv, i) => {
    must(`inventories[${i}].ssh_key`, inv.ssh_key, keys);
    must(`inventories[${i}].become_key`, inv.become_key, keys);
  });
  const templates = names('templates');
  lists.templates!.forEach((t, i) => {
    if (!names('repositories').has(t.repository)) problems.push(`templates[${i}] has no repository`);
    must(`templates[${i}].inventory`, t.inventory, names('inventories'));
    must(`templates[${i}].environment`, t.environment, names('environments'));
    must(`templates[${i}].view`, t.view, names('views', 'title'));
    ((t.vaults ?? []) as Json[]).forEach((v, j) => must(`templates[${i}].vaults[${j}]`, v.vault_key, keys));
    if (t.type === 'deploy' && !templates.has(t.build_template)) problems.push(`templates[${i}] has no build template`);
  });
  lists.schedules!.forEach((s, i) => {
    if (!templates.has(s.template)) problems.push(`schedules[${i}] has no template`);
    must(`schedules[${i}].checkable_repository`, s.checkable_repository, names('repositories'));
  });
  lists.integrations!.forEach((ig, i) => {
    if (!templates.has(ig.template)) problems.push(`integrations[${i}] has no template`);
  });
  return problems;
}

/** A project with one of everything, and a second object of the same name for each kind that has names. */
async function projectWithRepeatedNames(admin: Caller) {
  const src = await fullProject(admin);
  const post = async (path: string, body: object): Promise<number> => {
    const r = await admin.post(`/api/project/${src.p}/${path}`, body);
    if (r.statusCode !== 201) throw new Error(`${path}: ${r.statusCode} ${r.body}`);
    return r.json<{ id: number }>().id;
  };
  const key = await post('keys', {
    name: 'become',
    type: 'login_password',
    login_password: { login: 'second', password: SECRETS.password },
  });
  const repo = await post('repositories', { name: 'local repo', git_url: '/srv/repos/other', ssh_key_id: key });
  const inv = await post('inventory', { name: 'hosts', type: 'static', inventory: 'db1', ssh_key_id: key });
  const env = await post('environment', { name: 'prod vars', json: '{}', env: '{}' });
  const view = await post('views', { title: 'Ops', position: 3 });
  await post('templates', {
    name: 'Build',
    app: 'ansible',
    playbook: 'other.yml',
    inventory_id: inv,
    repository_id: repo,
    environment_id: env,
    view_id: view,
    vaults: [{ name: 'second', type: 'password', vault_key_id: key }],
  });
  return src;
}

/**
 * Gantry's backup of a project, as comparable across restores: a restore leaves out key material
 * (so the ssh login) and starts schedules inactive; the export time differs.
 */
const comparable = (b: ProjectBackup) => ({
  ...b,
  meta: { ...b.meta, exported: '' },
  keys: b.keys.map((k) => (k.ssh ? { ...k, ssh: { login: '' } } : k)),
  schedules: b.schedules.map((s) => ({ ...s, active: false })),
});

describe.each(engines)('the combined backup file ($name)', (engine) => {
  const t = useTestApp(engine);

  it("answers Semaphore's format plus a gantry member when no format is asked for", async () => {
    const admin = await signedInUser(t(), { admin: true });
    const src = await projectWithRepeatedNames(admin);
    const res = await backupOf(admin, src.p);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers['content-disposition']).toBe(`attachment; filename="project-${src.p}-Backup-source.json"`);
    for (const s of [...Object.values(SECRETS), src.alias]) expect(res.body).not.toContain(s);
    expect(res.body).not.toMatch(/PRIVATE KEY|root-login/);
    const combined = res.json() as Json;
    expect(Object.keys(combined)).toEqual([...SEMAPHORE_MEMBERS, 'gantry']);

    // Without its extra member it is the Semaphore format's file, a valid Semaphore backup.
    const { gantry, ...plain } = combined;
    expect(plain).toEqual((await backupOf(admin, src.p, 'semaphore')).json());
    expect(semaphoreProblems(plain)).toEqual([]);
    // (The check does find what would break Semaphore's restore.)
    expect(
      semaphoreProblems({
        ...plain,
        meta: { name: 1 },
        templates: [{ name: 'x', repository: 'gone', autorun: 'yes' }],
      }),
    ).toEqual([
      'meta.name is number, not string',
      'templates[0].autorun is string, not boolean',
      'templates[0] has no repository',
      ...semaphoreProblems({ ...plain, templates: [] }),
    ]);
    expect(plain.meta).not.toHaveProperty('format');
    const converted = fromSemaphore(semaphoreBackupSchema.parse(plain));
    expect(converted.unmapped).toEqual([]);
    // Repeated names are made unique there, as Semaphore's own export does; the member keeps the real ones.
    expect((plain.keys as Json[]).map((k) => k.name)).toEqual([
      'become',
      'become (2)',
      'deploy ssh',
      'hook secret',
      'none',
    ]);
    expect(gantry).toEqual({
      format: 'gantry-project-backup',
      version: 1,
      exported: expect.any(String),
      keys: [
        { name: 'become (2)', gantry_name: 'become' },
        { name: 'deploy ssh', ssh: { login: 'deployer' } },
      ],
      repositories: [{ name: 'local repo (2)', gantry_name: 'local repo' }],
      inventories: [{ name: 'hosts (2)', gantry_name: 'hosts' }],
      environments: [{ name: 'prod vars (2)', gantry_name: 'prod vars' }],
      views: [{ name: 'Ops (2)', gantry_name: 'Ops' }],
      templates: [{ name: 'Build (2)', gantry_name: 'Build' }],
    });

    // `format` picks one explicitly: combined (the default), gantry (Gantry's console), semaphore.
    const named = (await backupOf(admin, src.p, 'combined')).json() as Json;
    expect({ ...named, gantry: { ...(named.gantry as Json), exported: '' } }).toEqual({
      ...combined,
      gantry: { ...(gantry as Json), exported: '' },
    });
    const own = await backupOf(admin, src.p, 'gantry');
    expect(own.headers['content-disposition']).toBe(
      `attachment; filename="gantry-project-${src.p}-Backup-source.json"`,
    );
    expect(own.json().meta).toMatchObject({ format: 'gantry-project-backup', version: 1 });
    const wrong = await backupOf(admin, src.p, 'bogus');
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json().error).toMatch(/format must be combined, gantry or semaphore/);
  });

  it("restores in Gantry with nothing lost that Gantry's own format keeps", async () => {
    const admin = await signedInUser(t(), { admin: true });
    const src = await projectWithRepeatedNames(admin);
    const gantry = async (p: number) => (await backupOf(admin, p, 'gantry')).json() as ProjectBackup;
    const original = await gantry(src.p);
    const combined = (await backupOf(admin, src.p)).json() as Json;

    const res = await admin.post('/api/projects/restore', combined);
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toEqual({ id: expect.any(Number), projectName: 'Backup source', emptyKeys: 4, emptySecrets: expect.any(Array), unmapped: [] });
    expect(comparable(await gantry(res.json().id))).toEqual(comparable(original));

    // The same as restoring Gantry's own format.
    const fromOwn = await admin.post('/api/projects/restore', original);
    expect(fromOwn.statusCode, fromOwn.body).toBe(201);
    expect(comparable(await gantry(fromOwn.json().id))).toEqual(comparable(await gantry(res.json().id)));

    // Without the member (as Semaphore's format alone) everything but the unique names comes back.
    const { gantry: _member, ...plain } = combined;
    const semaphore = await admin.post('/api/projects/restore', plain);
    expect(semaphore.statusCode, semaphore.body).toBe(201);
    expect(semaphore.json().unmapped).toEqual([]);
    const renamed = await gantry(semaphore.json().id);
    expect(renamed.keys.map((k) => k.name)).toEqual(['become', 'become (2)', 'deploy ssh', 'hook secret', 'none']);
    const unique = (name: string) => name.replace(/ \(2\)$/, '');
    expect(
      comparable({
        ...renamed,
        keys: renamed.keys.map((k) => ({ ...k, name: unique(k.name) })),
        repositories: renamed.repositories.map((r) => ({ ...r, name: unique(r.name) })),
        inventories: renamed.inventories.map((i) => ({ ...i, name: unique(i.name) })),
        environments: renamed.environments.map((e) => ({ ...e, name: unique(e.name) })),
        views: renamed.views.map((v) => ({ ...v, title: unique(v.title) })),
        templates: renamed.templates.map((x) => ({ ...x, name: unique(x.name) })),
      }),
    ).toEqual(comparable(original));
  });

  it('reads the gantry member only when it is of this version, and refuses a malformed one', async () => {
    const ctx = t();
    const admin = await signedInUser(ctx, { admin: true });
    const src = await projectWithRepeatedNames(admin);
    const combined = (await backupOf(admin, src.p)).json() as Json & { gantry: Json };

    const later = await admin.post('/api/projects/restore', {
      ...combined,
      meta: { ...(combined.meta as Json), name: 'From a later version' },
      gantry: { ...combined.gantry, version: 2 },
    });
    expect(later.statusCode, later.body).toBe(201);
    expect(later.json().unmapped).toEqual([
      'The "gantry" member is of version 2 (this server reads version 1); ignored',
    ]);

    const projects = async () => (await admin.get('/api/projects')).json().length;
    const before = await projects();
    const bad = await admin.post('/api/projects/restore', { ...combined, gantry: { ...combined.gantry, keys: 'all' } });
    expect(bad.statusCode, bad.body).toBe(400);
    expect(bad.json().error).toMatch(/^Invalid backup: gantry\.keys: /);
    const badEntry = await admin.post('/api/projects/restore', {
      ...combined,
      gantry: { ...combined.gantry, views: [{ name: 'Ops (2)', gantry_name: 5 }] },
    });
    expect(badEntry.statusCode, badEntry.body).toBe(400);
    expect(badEntry.json().error).toMatch(/^Invalid backup: gantry\.views\[0\]\.gantry_name: /);
    expect(await projects()).toBe(before);
  });
});
