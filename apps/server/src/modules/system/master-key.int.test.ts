import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../../app.js';
import { insertReturningId } from '../../db/portable.js';
import { SecretBox } from '../../platform/crypto.js';
import { createProject, engines, signedInUser, useTestApp, type TestContext } from '../../test/harness.js';
import { setupTemplate } from '../../test/tasks.js';
import { SEALED_COLUMNS } from './master-key.repository.js';
import { MasterKeyError, masterKeyService } from './master-key.service.js';

const WRONG = /does not open this database's secrets \(test source changed\?\)\. Gantry will not start/;

/** Every sealed value with where it lives, in a stable order. */
async function sealedValues(ctx: TestContext): Promise<Array<{ where: string; id: number; value: string }>> {
  const out: Array<{ where: string; id: number; value: string }> = [];
  for (const { table, column } of SEALED_COLUMNS) {
    const { rows } = await sql<{
      id: number;
      value: string;
    }>`SELECT id, ${sql.ref(column)} AS value FROM ${sql.table(table)} WHERE ${sql.ref(column)} IS NOT NULL ORDER BY id`.execute(
      ctx.db.db,
    );
    out.push(...rows.map((r) => ({ where: `${table}.${column}`, id: r.id, value: r.value })));
  }
  return out;
}

const checkValue = async (ctx: TestContext) =>
  (await ctx.db.db.selectFrom('master_key_check').selectAll().execute()).map((r) => r.sealed);

/**
 * One secret in each sealed column: a key, a variable group secret and a TOTP secret through
 * the API; a task's secret answers and a Terraform state as the engine stores them.
 */
async function sealSomething(ctx: TestContext): Promise<{ projectId: number; keyId: number }> {
  const admin = await signedInUser(ctx, { admin: true });
  const projectId = await createProject(admin);
  const key = await admin.post(`/api/project/${projectId}/keys`, {
    name: 'k',
    type: 'login_password',
    login_password: { login: 'deploy', password: 'pw-sealed-1' },
  });
  expect(key.statusCode).toBe(201);
  const setup = await setupTemplate(
    admin,
    projectId,
    '/srv/none',
    { playbook: 'run.sh' },
    { secrets: [{ name: 'TOKEN', secret: 'env-sealed-2', type: 'env' }] },
  );
  expect((await admin.post(`/api/users/${admin.id}/2fas/totp`, { password: admin.password })).statusCode).toBe(201);
  const box = new SecretBox(ctx.secretKey);
  const now = new Date().toISOString();
  const taskId = await insertReturningId(ctx.db.db, 'task', {
    project_id: projectId,
    template_id: setup.templateId,
    status: 'success',
    message: '',
    commit_message: '',
    environment: '{}',
    secret: box.seal('{"answer":"task-sealed-3"}'),
    params: '{}',
    created: now,
  });
  const inventory = await admin.post(`/api/project/${projectId}/inventory`, {
    name: 'ws',
    type: 'static',
    inventory: 'h',
    ssh_key_id: setup.keyId,
  });
  expect(inventory.statusCode).toBe(201);
  await ctx.db.db
    .insertInto('terraform_state')
    .values({
      project_id: projectId,
      inventory_id: inventory.json<{ id: number }>().id,
      task_id: taskId,
      status: 'success',
      state: box.seal('{"state":"tf-sealed-4"}'),
      created: now,
    })
    .execute();
  return { projectId, keyId: key.json<{ id: number }>().id };
}

describe.each(engines)('master key check ($name)', (engine) => {
  const t = useTestApp(engine, { GANTRY_TOTP_ENABLED: 'true' });

  it('refuses another key at start once the check value is sealed, and writes nothing', async () => {
    const ctx = t();
    const check = await checkValue(ctx);
    // The harness started the app like the server does: the check value is there.
    expect(check).toHaveLength(1);
    await expect(masterKeyService(ctx.db).verify(new SecretBox(randomBytes(32)), 'test source')).rejects.toThrow(WRONG);
    await expect(masterKeyService(ctx.db).verify(new SecretBox(randomBytes(32)), 'test source')).rejects.toBeInstanceOf(
      MasterKeyError,
    );
    expect(await checkValue(ctx)).toEqual(check);
    await masterKeyService(ctx.db).verify(new SecretBox(ctx.secretKey), 'test source');
    expect(await checkValue(ctx)).toEqual(check);
  });

  it('checks a database from before the check value against its sealed secrets', async () => {
    const ctx = t();
    await sealSomething(ctx);
    await ctx.db.db.deleteFrom('master_key_check').execute();
    await expect(masterKeyService(ctx.db).verify(new SecretBox(randomBytes(32)), 'test source')).rejects.toThrow(WRONG);
    expect(await checkValue(ctx)).toEqual([]);
    await masterKeyService(ctx.db).verify(new SecretBox(ctx.secretKey), 'test source');
    expect(await checkValue(ctx)).toHaveLength(1);
    await expect(masterKeyService(ctx.db).verify(new SecretBox(randomBytes(32)), 'test source')).rejects.toThrow(WRONG);
  });
});

describe.each(engines)('master key rotation ($name)', (engine) => {
  const t = useTestApp(engine, { GANTRY_TOTP_ENABLED: 'true' });

  it('changes nothing when the current key is wrong or one value does not open', async () => {
    const ctx = t();
    await sealSomething(ctx);
    const before = await sealedValues(ctx);
    const check = await checkValue(ctx);
    const next = new SecretBox(randomBytes(32));
    await expect(masterKeyService(ctx.db).rekey(new SecretBox(randomBytes(32)), next, 'test source')).rejects.toThrow(
      /does not open this database's check value; nothing was changed/,
    );
    expect(await sealedValues(ctx)).toEqual(before);
    expect(await checkValue(ctx)).toEqual(check);

    // The last column holds a value sealed with another key: the rows re-sealed before it roll back.
    const stray = new SecretBox(randomBytes(32)).seal('{"state":"other"}');
    const last = before.filter((v) => v.where === 'terraform_state.state').at(-1)!;
    await ctx.db.db.updateTable('terraform_state').set({ state: stray }).where('id', '=', last.id).execute();
    const withStray = await sealedValues(ctx);
    await expect(masterKeyService(ctx.db).rekey(new SecretBox(ctx.secretKey), next, 'test source')).rejects.toThrow(
      /does not open a value in terraform_state\.state; nothing was changed/,
    );
    expect(await sealedValues(ctx)).toEqual(withStray);
    expect(await checkValue(ctx)).toEqual(check);
    // Put the value back for the next test on this database.
    await ctx.db.db.updateTable('terraform_state').set({ state: last.value }).where('id', '=', last.id).execute();
  });

  it('names secret.key.new at start when a rekey stopped before replacing the key file', async () => {
    const ctx = t();
    await sealSomething(ctx);
    const old = new SecretBox(ctx.secretKey);
    const next = new SecretBox(randomBytes(32));
    // The rekey's transaction committed; the rename of the staged key file never happened.
    await masterKeyService(ctx.db).rekey(old, next, 'test source');
    const staged = { box: next, source: '/data/secret.key.new' };
    await expect(masterKeyService(ctx.db).verify(old, '/data/secret.key', staged)).rejects.toThrow(
      new MasterKeyError(
        "The master key in /data/secret.key does not open this database's secrets, but /data/secret.key.new does: a gantry rekey re-sealed the database and stopped before it replaced the key file. " +
          'Move /data/secret.key.new over /data/secret.key (keep a copy of the old key if a backup of the database from before the rekey may be restored), then start again. Gantry will not start until then.',
      ),
    );
    // A staged key that does not open the database either changes nothing in the message.
    await expect(
      masterKeyService(ctx.db).verify(old, 'test source', { box: new SecretBox(randomBytes(32)), source: 'other' }),
    ).rejects.toThrow(WRONG);
    // With the right key the staged file is not looked at.
    await masterKeyService(ctx.db).verify(next, 'test source', { box: old, source: 'stale' });
    expect(await masterKeyService(ctx.db).opensCheck(next)).toBe(true);
    expect(await masterKeyService(ctx.db).opensCheck(old)).toBe(false);
    // Back to the harness's key for the tests after this one.
    await masterKeyService(ctx.db).rekey(next, old, 'test source');
  });

  it('re-seals every value and the check value with the new key in one go', async () => {
    const ctx = t();
    const { projectId, keyId } = await sealSomething(ctx);
    const old = new SecretBox(ctx.secretKey);
    // More states than one batch of the walk holds.
    const first = await ctx.db.db.selectFrom('terraform_state').selectAll().orderBy('id').executeTakeFirstOrThrow();
    const { id: _id, ...template } = first;
    await ctx.db.db
      .insertInto('terraform_state')
      .values(Array.from({ length: 150 }, (_, i) => ({ ...template, state: old.seal(`{"serial":${i}}`) })))
      .execute();
    const before = await sealedValues(ctx);
    expect(before.length).toBeGreaterThan(150);
    expect(new Set(before.map((v) => v.where))).toEqual(new Set(SEALED_COLUMNS.map((c) => `${c.table}.${c.column}`)));
    const newKey = randomBytes(32);
    const next = new SecretBox(newKey);

    expect(await masterKeyService(ctx.db).rekey(old, next, 'test source')).toBe(before.length);

    const after = await sealedValues(ctx);
    expect(after.map((v) => [v.where, v.id, next.open(v.value)])).toEqual(
      before.map((v) => [v.where, v.id, old.open(v.value)]),
    );
    for (const v of after) expect(() => old.open(v.value)).toThrow();
    await expect(masterKeyService(ctx.db).verify(old, 'test source')).rejects.toThrow(WRONG);
    await masterKeyService(ctx.db).verify(next, 'test source');

    // A server started with the new key uses the secrets as before.
    const app = await buildApp({ config: ctx.config, db: ctx.db, secretKey: newKey });
    try {
      expect(await app.services.keys.secretOf(projectId, keyId)).toMatchObject({
        login: 'deploy',
        password: 'pw-sealed-1',
      });
    } finally {
      await app.close();
    }
  });
});
