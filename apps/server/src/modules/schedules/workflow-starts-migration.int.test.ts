import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, type Db } from '../../db/db.js';
import { migrateToLatest, migrateUpTo } from '../../db/migrate.js';
import { engines, type TestDatabase } from '../../test/engines.js';

const now = '2026-01-02T03:04:05.000Z';
type AnyTables = Record<string, Record<string, unknown>>;

/**
 * Migration 031 (schedule/integration `workflow_id`, `template_id` nullable) on a database that
 * already holds schedules, integrations and everything hanging from integrations: nothing is
 * lost, the foreign keys still hold and cascade, and ids carry on after the highest ever used.
 */
describe.each(engines)('migration 031-workflow-starts ($name)', (engine) => {
  let database: TestDatabase;
  let d: Db;
  // Raw rows of tables the app's types describe after the migration only.
  let db: Kysely<AnyTables>;
  const ids: Record<string, number> = {};

  const insert = async (table: string, values: Record<string, unknown>): Promise<number> => {
    await db.insertInto(table).values(values).execute();
    const row = await db
      .selectFrom(table)
      .select((eb) => eb.fn.max('id').as('id'))
      .executeTakeFirstOrThrow();
    return Number(row.id);
  };
  const count = async (table: string): Promise<number> =>
    Number(
      (
        await db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );

  beforeAll(async () => {
    database = await engine.create();
    d = createDb(database.url);
    db = d.db as unknown as Kysely<AnyTables>;
    await migrateUpTo(d, '030-approvals');

    const project = await insert('project', { name: 'p', created: now });
    const key = await insert('access_key', { project_id: project, name: 'none', type: 'none', created: now });
    const repo = await insert('repository', {
      project_id: project,
      name: 'r',
      git_url: '/tmp/r',
      ssh_key_id: key,
      created: now,
    });
    const env = await insert('environment', { project_id: project, name: 'e', created: now });
    const tpl = await insert('template', {
      project_id: project,
      name: 'tpl',
      app: 'bash',
      repository_id: repo,
      environment_id: env,
      created: now,
    });
    Object.assign(ids, { project, key, repo, env, tpl });
    const schedule = (name: string) =>
      insert('schedule', {
        project_id: project,
        template_id: tpl,
        name,
        cron_format: '0 3 * * *',
        repository_id: repo,
        active: 1,
        active_since: now,
        last_commit_hash: 'abc',
        created: now,
      });
    ids.schedule = await schedule('nightly');
    // The highest id ever used is gone before the migration: it must not be handed out again.
    ids.gone = await schedule('gone');
    await db.deleteFrom('schedule').where('id', '=', ids.gone).execute();

    ids.integration = await insert('integration', {
      project_id: project,
      name: 'hook',
      template_id: tpl,
      auth_method: 'token',
      auth_header: 'X-Token',
      auth_secret_id: key,
      searchable: 1,
      task_params: '{"message":"m"}',
      created: now,
    });
    await insert('integration_alias', {
      project_id: project,
      integration_id: ids.integration,
      alias: 'a'.repeat(20),
      created: now,
    });
    await insert('integration_alias', {
      project_id: project,
      integration_id: null,
      alias: 'b'.repeat(20),
      created: now,
    });
    await insert('integration_matcher', {
      project_id: project,
      integration_id: ids.integration,
      name: 'm',
      match_type: 'header',
      key: 'X-Event',
      method: 'equals',
      value: 'push',
    });
    await insert('integration_extract_value', {
      project_id: project,
      integration_id: ids.integration,
      name: 'v',
      value_source: 'header',
      key: 'X-Id',
      variable_type: 'environment',
      variable: 'ID',
    });
    await db
      .insertInto('webhook_delivery')
      .values({ integration_id: ids.integration, delivery_id: 'd1', received: now })
      .execute();
    await db
      .insertInto('webhook_delivery_body')
      .values({ integration_id: ids.integration, body_sha256: 'f'.repeat(64), received: now })
      .execute();

    await migrateToLatest(d);
  });
  afterAll(async () => {
    await d?.close();
    await database?.drop();
  });

  it('keeps schedules, integrations and their children as they were', async () => {
    expect(await db.selectFrom('schedule').selectAll().execute()).toEqual([
      expect.objectContaining({
        id: ids.schedule,
        project_id: ids.project,
        template_id: ids.tpl,
        workflow_id: null,
        name: 'nightly',
        cron_format: '0 3 * * *',
        repository_id: ids.repo,
        active: 1,
        active_since: now,
        last_commit_hash: 'abc',
      }),
    ]);
    expect(await db.selectFrom('integration').selectAll().execute()).toEqual([
      expect.objectContaining({
        id: ids.integration,
        template_id: ids.tpl,
        workflow_id: null,
        name: 'hook',
        auth_method: 'token',
        auth_header: 'X-Token',
        auth_secret_id: ids.key,
        searchable: 1,
        task_params: '{"message":"m"}',
      }),
    ]);
    const children = [
      'integration_alias',
      'integration_matcher',
      'integration_extract_value',
      'webhook_delivery',
      'webhook_delivery_body',
    ];
    expect(await Promise.all(children.map(count))).toEqual([2, 1, 1, 1, 1]);
  });

  it('takes a workflow instead of a template; ids carry on; foreign keys still hold and cascade', async () => {
    const workflow = await insert('workflow', {
      project_id: ids.project,
      name: 'w',
      description: '',
      graph: '{"nodes":[],"edges":[]}',
      created: now,
      updated: now,
    });
    const s = await insert('schedule', {
      project_id: ids.project,
      template_id: null,
      workflow_id: workflow,
      name: 'wf',
      cron_format: '* * * * *',
      active: 1,
      active_since: now,
      created: now,
    });
    expect(s).toBeGreaterThan(ids.gone!);
    const i = await insert('integration', {
      project_id: ids.project,
      name: 'wf hook',
      template_id: null,
      workflow_id: workflow,
      created: now,
    });
    expect(i).toBeGreaterThan(ids.integration!);
    // A workflow that is not there is refused: the new column's foreign key holds.
    await expect(
      db
        .insertInto('schedule')
        .values({
          project_id: ids.project,
          workflow_id: 999_999,
          name: 'x',
          cron_format: '* * * * *',
          active_since: now,
          created: now,
        })
        .execute(),
    ).rejects.toThrow();
    // The old ones still hold: the rebuilt integration refuses an unknown secret key.
    await expect(
      db
        .insertInto('integration')
        .values({ project_id: ids.project, name: 'x', template_id: ids.tpl, auth_secret_id: 999_999, created: now })
        .execute(),
    ).rejects.toThrow();
    // Deleting the workflow takes its schedules and integrations along; the template's stay.
    await db.deleteFrom('workflow').where('id', '=', workflow).execute();
    expect((await db.selectFrom('schedule').select('id').execute()).map((r) => r.id)).toEqual([ids.schedule]);
    expect((await db.selectFrom('integration').select('id').execute()).map((r) => r.id)).toEqual([ids.integration]);
    // The children still point at the (rebuilt) integration: deleting it cascades to them.
    await db.deleteFrom('integration').where('id', '=', ids.integration).execute();
    expect(
      await Promise.all(
        ['integration_matcher', 'integration_extract_value', 'webhook_delivery', 'webhook_delivery_body'].map(count),
      ),
    ).toEqual([0, 0, 0, 0]);
    expect(await count('integration_alias')).toBe(1);
  });
});
