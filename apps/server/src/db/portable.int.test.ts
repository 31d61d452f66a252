import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines, type TestDatabase } from '../test/engines.js';
import { createDb, type Db } from './db.js';
import { migrateToLatest } from './migrate.js';
import { insertReturningAll, insertReturningId, insertUnlessDuplicate } from './portable.js';

const now = '2024-01-02T03:04:05.000Z';

describe.each(engines)('statements that differ by engine ($name)', (engine) => {
  let database: TestDatabase;
  let d: Db;
  beforeAll(async () => {
    database = await engine.create();
    d = createDb(database.url);
    await migrateToLatest(d);
  });
  afterAll(async () => {
    await d?.close();
    await database?.drop();
  });

  const project = () =>
    insertReturningAll(d.db, 'project', {
      name: 'p',
      created: now,
      type: '',
      alert: 0,
      alert_chat: null,
      max_parallel_tasks: 0,
    });

  it('answers an inserted row as stored, inside a transaction too', async () => {
    const p = await project();
    expect(p).toMatchObject({ name: 'p', created: now, alert: 0, max_parallel_tasks: 0 });
    expect(typeof p.id).toBe('number');
    const [a, b] = await d.db
      .transaction()
      .execute(async (trx) => [
        await insertReturningAll(trx, 'view', { project_id: p.id, title: 'a', position: 1 }),
        await insertReturningId(trx, 'view', { project_id: p.id, title: 'b', position: 2 }),
      ]);
    expect(a).toEqual({ id: a.id, project_id: p.id, title: 'a', position: 1 });
    expect(b).toBe(a.id + 1);
  });

  it('inserts a duplicate key nothing, once, and still fails on other errors', async () => {
    const p = await project();
    const integration = await insertReturningAll(d.db, 'integration', {
      project_id: p.id,
      name: 'i',
      template_id: await template(p.id),
      auth_method: 'github',
      auth_header: null,
      auth_secret_id: null,
      searchable: 0,
      task_params: '{}',
      created: now,
    });
    const row = { integration_id: integration.id, delivery_id: 'abc-1', received: now };
    const racing = await Promise.all([1, 2, 3, 4].map(() => insertUnlessDuplicate(d.db, 'webhook_delivery', row)));
    expect(racing.filter(Boolean)).toHaveLength(1);
    // Ids compare exactly: another case is another delivery.
    expect(await insertUnlessDuplicate(d.db, 'webhook_delivery', { ...row, delivery_id: 'ABC-1' })).toBe(true);
    // A missing integration is an error, not a duplicate.
    await expect(
      insertUnlessDuplicate(d.db, 'webhook_delivery', { ...row, integration_id: 999_999 }),
    ).rejects.toThrow();
  });

  it('counts a row an update matched even when it changed nothing', async () => {
    const p = await project();
    const v = await insertReturningAll(d.db, 'view', { project_id: p.id, title: 'same', position: 0 });
    const r = await d.db
      .updateTable('view')
      .set({ title: 'same' })
      .where('id', '=', v.id)
      .where('title', 'in', ['same', 'other'])
      .executeTakeFirst();
    expect(Number(r.numUpdatedRows)).toBe(1);
    const none = await d.db
      .updateTable('view')
      .set({ title: 'x' })
      .where('id', '=', v.id)
      .where('title', 'in', ['other'])
      .executeTakeFirst();
    expect(Number(none.numUpdatedRows)).toBe(0);
  });

  it('keeps foreign keys and their cascades, long text, exact and case-sensitive keys', async () => {
    const p = await project();
    await insertReturningAll(d.db, 'view', { project_id: p.id, title: 'v', position: 0 });
    await d.db.deleteFrom('project').where('id', '=', p.id).execute();
    expect(await d.db.selectFrom('view').select('id').where('project_id', '=', p.id).execute()).toEqual([]);

    const big = 'é'.repeat(300_000);
    const q = await project();
    const env = await insertReturningAll(d.db, 'environment', {
      project_id: q.id,
      name: 'e',
      json: big,
      env: '{}',
      created: now,
    });
    expect(env.json).toBe(big);

    const user = (username: string) =>
      insertReturningAll(d.db, 'user', {
        username,
        name: username,
        email: `${username}@example.com`,
        password: null,
        admin: 0,
        external: 0,
        alert: 0,
        created: now,
      });
    await user('Alice');
    await user('alice');
    const found = await d.db.selectFrom('user').select('username').where('username', '=', 'alice').execute();
    expect(found).toEqual([{ username: 'alice' }]);
    expect(await d.db.selectFrom('user').select('username').where('username', '=', 'alicé').execute()).toEqual([]);
  });

  it('answers counts and sums as numbers', async () => {
    const r = await d.db
      .selectFrom('view')
      .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.sum<number>('position').as('s')])
      .executeTakeFirstOrThrow();
    expect(typeof r.n).toBe('number');
    expect(typeof r.s).toBe('number');
  });

  if (engine.name === 'mysql') {
    it('refuses RETURNING, whose rows MariaDB would answer and Kysely drop', async () => {
      const p = await project();
      await expect(
        d.db.insertInto('view').values({ project_id: p.id, title: 'r', position: 0 }).returning('id').execute(),
      ).rejects.toThrow(/insertReturningAll/);
    });

    it('makes InnoDB tables with a binary collation, long text and table-level foreign keys', async () => {
      const { rows: tables } = await sql<{
        engine: string;
        collation: string;
      }>`SELECT ENGINE AS engine, TABLE_COLLATION AS collation
        FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME NOT LIKE 'kysely%'`.execute(d.db);
      expect(tables.length).toBeGreaterThan(20);
      for (const t of tables) expect(t).toEqual({ engine: 'InnoDB', collation: 'utf8mb4_bin' });
      const { rows: fks } = await sql<{
        n: number;
      }>`SELECT count(*) AS n FROM information_schema.REFERENTIAL_CONSTRAINTS
        WHERE CONSTRAINT_SCHEMA = DATABASE() AND TABLE_NAME = 'task' AND DELETE_RULE = 'CASCADE'`.execute(d.db);
      expect(fks[0]!.n).toBe(2);
      const { rows: cols } = await sql<{ type: string }>`SELECT DATA_TYPE AS type FROM information_schema.COLUMNS
        WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'terraform_state' AND COLUMN_NAME = 'state'`.execute(d.db);
      expect(cols[0]!.type).toBe('longtext');
    });
  }

  async function template(projectId: number): Promise<number> {
    const key = await insertReturningId(d.db, 'access_key', {
      project_id: projectId,
      name: 'k',
      type: 'none',
      secret: null,
      created: now,
    });
    const repo = await insertReturningId(d.db, 'repository', {
      project_id: projectId,
      name: 'r',
      git_url: 'https://example.com/r.git',
      git_branch: 'main',
      ssh_key_id: key,
      created: now,
    });
    const env = await insertReturningId(d.db, 'environment', {
      project_id: projectId,
      name: 'e',
      json: '{}',
      env: '{}',
      created: now,
    });
    return insertReturningId(d.db, 'template', {
      project_id: projectId,
      name: 't',
      description: '',
      type: '',
      app: 'bash',
      playbook: 'x.sh',
      inventory_id: null,
      repository_id: repo,
      environment_id: env,
      view_id: null,
      git_branch: null,
      runner_tag: null,
      start_version: null,
      build_template_id: null,
      autorun: 0,
      arguments: null,
      allow_override_args_in_task: 0,
      allow_override_branch_in_task: 0,
      allow_extra_vars_in_task: 0,
      suppress_success_alerts: 0,
      survey_vars: '[]',
      task_params: '{}',
      created: now,
    });
  }
});
