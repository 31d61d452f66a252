import {
  BACKUP_FORMAT,
  CSRF_HEADER,
  RESTORE_BODY_LIMIT,
  SESSION_COOKIE,
  type ProjectBackupInput,
} from '@gantry/contracts';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { engines, signedInUser, useTestApp, type TestContext } from '../../test/harness.js';
import { RESTORE_SECTION_MAX } from './backup.limits.js';

const meta = { format: BACKUP_FORMAT, version: 1, name: 'Big restore' } as const;

/**
 * A backup of about `mb` megabytes: a few hundred objects of each kind, large static inventories
 * making up most of the size (fewer objects than bench/restore-health.mjs restores, so the test
 * stays short on PostgreSQL).
 */
function largeBackup(mb: number): ProjectBackupInput {
  const n = Math.max(1, Math.round(mb * 50));
  const hosts = Array.from({ length: 360 }, (_, i) => `host-${i}.example.com ansible_port=22 role=web`).join('\n');
  const vars = JSON.stringify(
    Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`var_${i}`, `value-${i}-`.repeat(3)])),
  );
  const describe = 'A template restored from a large backup. '.repeat(40);
  const ids = (count: number) => Array.from({ length: count }, (_, i) => i + 1);
  return {
    meta,
    keys: ids(20).map((id) => ({ id, name: `key ${id}`, type: 'none' as const })),
    repositories: ids(20).map((id) => ({
      id,
      name: `repo ${id}`,
      git_url: `https://git.example.com/acme/r${id}.git`,
      git_branch: 'main',
      ssh_key_id: id,
    })),
    inventories: ids(n).map((id) => ({
      id,
      name: `inv ${id}`,
      type: 'static' as const,
      inventory: hosts,
      ssh_key_id: 1,
    })),
    environments: ids(n).map((id) => ({ id, name: `env ${id}`, json: vars, env: '{}' })),
    views: ids(10).map((id) => ({ id, title: `view ${id}`, position: id })),
    templates: ids(n).map((id) => ({
      id,
      name: `tpl ${id}`,
      description: describe,
      app: 'ansible',
      playbook: 'site.yml',
      inventory_id: id,
      repository_id: (id % 20) + 1,
      environment_id: id,
      view_id: (id % 10) + 1,
    })),
    schedules: ids(Math.ceil(n / 4)).map((id) => ({ name: `sched ${id}`, template_id: id, cron_format: '0 3 * * *' })),
    integrations: ids(Math.ceil(n / 4)).map((id) => ({ name: `hook ${id}`, template_id: id })),
  };
}

/** Plain HTTP against the listening app, so the event loop is what the answer times depend on. */
async function listening(ctx: TestContext): Promise<string> {
  if (!ctx.app.server.listening) await ctx.app.listen({ port: 0, host: '127.0.0.1' });
  return `http://127.0.0.1:${(ctx.app.server.address() as AddressInfo).port}`;
}

describe.each(engines)('backup restore limits ($name)', (engine) => {
  const t = useTestApp(engine);
  const projectCount = async () =>
    Number(
      (
        await t()
          .db.db.selectFrom('project')
          .select((e) => e.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );

  it('refuses with 413 a backup holding more objects of one kind than a restore takes, storing nothing', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const before = await projectCount();
    const views = Array.from({ length: RESTORE_SECTION_MAX + 1 }, (_, i) => ({ id: i + 1, title: `v${i}` }));
    const res = await admin.post('/api/projects/restore', { meta, views });
    expect(res.statusCode).toBe(413);
    expect(res.json()).toEqual({
      error: `The backup holds ${RESTORE_SECTION_MAX + 1} views; a restore takes at most ${RESTORE_SECTION_MAX} of each kind`,
      code: 'restore_section_too_large',
      field: 'views',
      count: RESTORE_SECTION_MAX + 1,
      max: RESTORE_SECTION_MAX,
    });
    expect(await projectCount()).toBe(before);
    // A list inside an object is bounded too, named by its path.
    const matchers = Array.from({ length: RESTORE_SECTION_MAX + 1 }, (_, i) => ({
      name: `m${i}`,
      match_type: 'header',
      key: 'x-event',
      method: 'equals',
      value: 'push',
    }));
    const nested = await admin.post('/api/projects/restore', {
      meta,
      keys: [{ id: 1, name: 'k', type: 'none' }],
      repositories: [
        { id: 1, name: 'r', git_url: 'https://git.example.com/acme/r.git', git_branch: 'main', ssh_key_id: 1 },
      ],
      environments: [{ id: 1, name: 'e' }],
      templates: [{ id: 1, name: 't', app: 'bash', playbook: 'run.sh', repository_id: 1, environment_id: 1 }],
      integrations: [{ name: 'hook', template_id: 1, matchers }],
    });
    expect([nested.statusCode, nested.json()]).toEqual([
      413,
      expect.objectContaining({ field: 'integrations.matchers' }),
    ]);
    expect(await projectCount()).toBe(before);
    // At the cap it is restored.
    const atCap = await admin.post('/api/projects/restore', { meta, views: views.slice(0, RESTORE_SECTION_MAX) });
    expect(atCap.statusCode).toBe(201);
  }, 120_000);

  it("refuses with 413 a Semaphore backup over the cap, naming Semaphore's section", async () => {
    const admin = await signedInUser(t(), { admin: true });
    const before = await projectCount();
    const keys = Array.from({ length: RESTORE_SECTION_MAX + 1 }, (_, i) => ({ name: `k${i}`, type: 'none' }));
    const res = await admin.post('/api/projects/restore', { meta: { name: 'From Semaphore' }, keys });
    expect(res.statusCode).toBe(413);
    expect(res.json()).toMatchObject({ code: 'restore_section_too_large', field: 'keys' });
    expect(await projectCount()).toBe(before);
  });

  it('reads the restore body as the API reads JSON: limits, invalid JSON, prototype poisoning, no body', async () => {
    const ctx = t();
    const admin = await signedInUser(ctx, { admin: true });
    const post = (payload: string, headers: Record<string, string> = {}) =>
      ctx.app.inject({
        method: 'POST',
        url: '/api/projects/restore',
        cookies: { [SESSION_COOKIE]: admin.cookie },
        headers: { 'content-type': 'application/json', [CSRF_HEADER]: '1', ...headers },
        payload,
      });
    const before = await projectCount();
    const tooLarge = await post(JSON.stringify({ meta, pad: 'x'.repeat(RESTORE_BODY_LIMIT) }));
    expect([tooLarge.statusCode, tooLarge.json()]).toEqual([
      413,
      { error: 'Request body is too large', code: 'body_too_large' },
    ]);
    const broken = await post('{"meta": ');
    expect([broken.statusCode, broken.json()]).toEqual([
      400,
      { error: 'Request body is not valid JSON', code: 'body_not_json' },
    ]);
    const poisoned = await post(`{"meta": ${JSON.stringify(meta)}, "__proto__": {"admin": true}}`);
    expect([poisoned.statusCode, poisoned.json()]).toEqual([
      400,
      { error: 'Request body is not valid JSON', code: 'body_not_json' },
    ]);
    const empty = await post('  ');
    expect([empty.statusCode, empty.json().error]).toEqual([400, expect.stringMatching(/^Invalid backup: /)]);
    expect(await projectCount()).toBe(before);
    // Over real HTTP the body comes in many chunks: multi-byte characters split between two arrive whole.
    const inventory = `ünïcødé ${'é€😀'.repeat(100_000)}`;
    const res = await fetch(`${await listening(ctx)}/api/projects/restore`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie: `${SESSION_COOKIE}=${admin.cookie}`, [CSRF_HEADER]: '1' },
      body: JSON.stringify({
        meta: { ...meta, name: 'Ünïcødé' },
        keys: [{ id: 1, name: 'k', type: 'none' }],
        inventories: [{ id: 1, name: 'i', type: 'static', inventory, ssh_key_id: 1 }],
      }),
    });
    const restored = (await res.json()) as { id: number; projectName: string };
    expect([res.status, restored.projectName]).toEqual([201, 'Ünïcødé']);
    const [stored] = (await admin.get(`/api/project/${restored.id}/inventory`)).json<Array<{ inventory: string }>>();
    expect(stored!.inventory === inventory).toBe(true);
  });

  it('keeps answering /api/health while an 8 MB restore runs', async () => {
    const ctx = t();
    const admin = await signedInUser(ctx, { admin: true });
    const base = await listening(ctx);
    const body = JSON.stringify(largeBackup(8));
    expect(body.length).toBeGreaterThan(7.5 * 1024 * 1024);
    let restoring = true;
    const answered: number[] = [];
    const poll = (async () => {
      while (restoring) {
        const start = performance.now();
        const res = await fetch(`${base}/api/health`);
        await res.text();
        if (res.status === 200 && restoring) answered.push(performance.now() - start);
        await new Promise((r) => setTimeout(r, 10));
      }
    })();
    const res = await fetch(`${base}/api/projects/restore`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie: `${SESSION_COOKIE}=${admin.cookie}`, [CSRF_HEADER]: '1' },
      body,
    });
    const text = await res.text();
    restoring = false;
    await poll;
    expect([res.status, text.slice(0, 200)]).toEqual([201, expect.stringContaining('"projectName":"Big restore"')]);
    // Interleaving, not timing (bench/restore-health.mjs measures that): health answered many
    // times while the restore ran, where before it answered once the restore was over.
    expect(answered.length).toBeGreaterThanOrEqual(10);
  }, 120_000);
});
