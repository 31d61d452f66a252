import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { keyCreateSchema, projectCreateSchema } from '@gantry/contracts';
import { afterAll, describe, expect, it } from 'vitest';
import { createServices, type Services } from '../app.js';
import { loadConfig } from '../config/config.js';
import { parseSecretKey } from '../config/secret-key.js';
import { createDb, type Db } from '../db/db.js';
import { masterKeyService } from '../modules/system/master-key.service.js';
import { SecretBox } from '../platform/crypto.js';

const run = promisify(execFile);
const bin = path.resolve(import.meta.dirname, '../../bin/gantry.mjs');
const built = fs.existsSync(path.resolve(import.meta.dirname, '../../dist/cli/main.js'));
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gantry-cli-'));
// The imported backups name local repositories under /srv (never cloned here).
const env = { ...process.env, GANTRY_DATA_DIR: dataDir, GANTRY_LOG_LEVEL: 'silent', GANTRY_ALLOWED_LOCAL_PATHS: '/srv' };
const gantry = (...args: string[]) => run('node', [bin, ...args], { env });

// The CLI runs from the build; `npm test` builds first. Each test starts the CLI (a whole server
// build loading) several times: on a loaded machine that alone can pass the default 30 s.
describe('gantry CLI (built)', { timeout: 120_000 }, () => {
  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  it('is built', () => {
    expect(built, 'run `npm run build` before this test').toBe(true);
  });

  it('migrates, adds, lists, changes a password and deletes a user', async () => {
    expect((await gantry('migrate')).stdout).toMatch(/Applied: 001-initial/);
    expect((await gantry('migrate')).stdout).toMatch(/up to date/);
    const add = await gantry('user', 'add', '--login', 'ops', '--name', 'Ops Person', '--email', 'ops@example.com', '--password', 'pw-1', '--admin');
    expect(add.stdout).toMatch(/User ops created/);
    const list = await gantry('user', 'list');
    expect(list.stdout).toMatch(/\tops\tOps Person\tops@example.com\tadmin/);
    expect(list.stdout).not.toMatch(/pw-1|scrypt/);
    expect((await gantry('user', 'change-by-login', '--login', 'ops', '--password', 'pw-2')).stdout).toMatch(/Password of ops changed/);
    expect((await gantry('user', 'delete', '--login', 'ops')).stdout).toMatch(/User ops deleted/);
    expect((await gantry('user', 'list')).stdout).not.toMatch(/\tops\t/);
  });

  it('imports a backup as a new project and exports it again', async () => {
    await gantry('migrate');
    await gantry('user', 'add', '--login', 'owner1', '--name', 'Owner', '--email', 'owner1@example.com', '--password', 'pw-o');
    const file = path.join(dataDir, 'in.json');
    const doc = {
      meta: { format: 'gantry-project-backup', version: 1, name: 'From file' },
      keys: [{ id: 1, name: 'deploy', type: 'ssh', ssh: { login: 'git' } }],
      repositories: [{ id: 1, name: 'r', git_url: '/srv/r', ssh_key_id: 1 }],
    };
    fs.writeFileSync(file, JSON.stringify(doc));
    const imported = await gantry('project', 'import', '--file', file, '--owner', 'owner1');
    const id = /id (\d+)/.exec(imported.stdout)?.[1];
    expect(imported.stdout).toMatch(/^Project From file restored \(id \d+, owner owner1, 1 empty keys\)/);
    const out = path.join(dataDir, 'out.json');
    await gantry('project', 'export', '--id', id!, '--out', out);
    const exported = JSON.parse(fs.readFileSync(out, 'utf8'));
    expect(exported).toMatchObject({ meta: { name: 'From file' }, keys: [{ name: 'deploy', type: 'ssh' }], repositories: [{ name: 'r', ssh_key_id: 1 }] });
    expect(JSON.parse((await gantry('project', 'export', '--id', id!)).stdout).meta.name).toBe('From file');
    fs.writeFileSync(file, JSON.stringify({ ...doc, meta: { ...doc.meta, version: 7 } }));
    await expect(gantry('project', 'import', '--file', file, '--owner', 'owner1')).rejects.toMatchObject({ stderr: expect.stringMatching(/Invalid backup: meta.version/) });
    await expect(gantry('project', 'export', '--id', '9999')).rejects.toMatchObject({ stderr: expect.stringMatching(/Project not found/) });
  });

  it("imports Semaphore UI's backup, saying what it left out, and exports in Semaphore's format", async () => {
    await gantry('migrate');
    await gantry('user', 'add', '--login', 'owner2', '--name', 'Owner', '--email', 'owner2@example.com', '--password', 'pw-o');
    const fixture = path.resolve(import.meta.dirname, '../modules/backup/fixtures/semaphore-backup.json');
    const imported = await gantry('project', 'import', '--file', fixture, '--owner', 'owner2');
    expect(imported.stdout).toMatch(/restored \(id \d+, owner owner2, \d+ empty keys\)/);
    expect(imported.stdout).toMatch(/not restored: /);
    const id = /id (\d+)/.exec(imported.stdout)?.[1];
    const semaphore = JSON.parse((await gantry('project', 'export', '--id', id!, '--format', 'semaphore')).stdout);
    // Semaphore's format: no Gantry marker, references by name.
    expect(semaphore.meta.format).toBeUndefined();
    expect(semaphore.templates.length).toBeGreaterThan(0);
    expect(typeof semaphore.templates[0].repository).toBe('string');
    await expect(gantry('project', 'export', '--id', id!, '--format', 'xml')).rejects.toMatchObject({ stderr: expect.stringMatching(/--format must be gantry or semaphore/) });
  });

  it('fails with a clear message and a non-zero exit', async () => {
    await expect(gantry('user', 'add', '--login', 'x', '--email', 'x@e.io', '--password', 'p')).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/Name is required/),
    });
    await expect(gantry('user', 'delete', '--login', 'nobody')).rejects.toMatchObject({ stderr: expect.stringMatching(/No user with login nobody/) });
    await expect(gantry('frobnicate')).rejects.toMatchObject({ stderr: expect.stringMatching(/Unknown command/) });
  });
});

// `gantry rekey` on a SQLite data dir; the same transaction on both engines is in master-key.int.test.ts.
// Each test starts the CLI several times in a row, hence the longer timeouts.
describe('gantry rekey (built)', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gantry-rekey-'));
  const keyFile = path.join(dir, 'secret.key');
  const rekeyEnv: NodeJS.ProcessEnv = { ...process.env, GANTRY_DATA_DIR: dir, GANTRY_LOG_LEVEL: 'silent', GANTRY_PORT: '0', GANTRY_HOST: '127.0.0.1' };
  delete rekeyEnv.GANTRY_SECRET_KEY;
  const cli = (extra: Record<string, string>, ...args: string[]) => run('node', [bin, ...args], { env: { ...rekeyEnv, ...extra } });
  const config = loadConfig({ GANTRY_DATA_DIR: dir, GANTRY_LOG_LEVEL: 'silent' });

  /** Services on the data dir's database with the given key, closed after `fn`. */
  async function withKey<T>(keyText: string, fn: (s: Services, db: Db) => Promise<T>): Promise<T> {
    const db = createDb(config.dbUrl);
    try {
      return await fn(createServices({ config, db, secretKey: parseSecretKey(keyText), nodeId: 'cli-test' }), db);
    } finally {
      await db.close();
    }
  }
  const sealed = () => withKey('unused', async (_s, db) => (await db.db.selectFrom('access_key').select('secret').orderBy('id').execute()).map((r) => r.secret));

  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('re-seals the secrets with a new key, replaces the key file, and the old key no longer starts', async () => {
    await cli({}, 'migrate');
    const oldKey = fs.readFileSync(keyFile, 'utf8').trim();
    const { projectId, keyIds } = await withKey(oldKey, async (s) => {
      const owner = await s.users.create({ username: 'keeper', name: 'Keeper', email: 'keeper@example.com', password: 'pw-keeper-1', admin: true, external: false, alert: false });
      const actor = { id: owner.id, admin: true };
      const project = await s.projects.create(actor, projectCreateSchema.parse({ name: 'Rekeyed' }));
      const ids: number[] = [];
      for (const n of [1, 2]) {
        const input = keyCreateSchema.parse({ name: `k${n}`, type: 'login_password', login_password: { login: 'deploy', password: `rekey-secret-${n}` } });
        ids.push((await s.keys.create(actor, project.id, input)).id);
      }
      return { projectId: project.id, keyIds: ids };
    });
    const before = await sealed();

    // A wrong current key: refused, nothing changes.
    await expect(cli({ GANTRY_SECRET_KEY: 'not-the-key' }, 'rekey', '--new-key', 'whatever')).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/The current master key \(GANTRY_SECRET_KEY\) does not open this database's check value; nothing was changed/),
    });
    expect(await sealed()).toEqual(before);
    expect(fs.readFileSync(keyFile, 'utf8').trim()).toBe(oldKey);

    const newKey = randomBytes(32).toString('base64');
    const newKeyFile = path.join(dir, 'new.key');
    fs.writeFileSync(newKeyFile, `${newKey}\n`);
    const done = await cli({}, 'rekey', '--new-key-file', newKeyFile);
    expect(done.stdout).toBe(`Re-sealed 2 secret value(s) with the new master key.\nThe new key is now in ${keyFile}.\n`);
    expect(fs.readFileSync(keyFile, 'utf8')).toBe(`${newKey}\n`);
    expect(fs.statSync(keyFile).mode & 0o777).toBe(0o600);
    expect(fs.existsSync(`${keyFile}.new`)).toBe(false);
    expect(await sealed()).not.toEqual(before);

    // Started with the new key (from its file), the secrets open as before.
    expect((await cli({}, 'user', 'list')).stdout).toMatch(/\tkeeper\t/);
    const secrets = await withKey(newKey, (s) => Promise.all(keyIds.map((id) => s.keys.secretOf(projectId, id))));
    expect(secrets).toMatchObject([{ login: 'deploy', password: 'rekey-secret-1' }, { login: 'deploy', password: 'rekey-secret-2' }]);

    // The old key is refused at start, before the server listens.
    await expect(cli({ GANTRY_SECRET_KEY: oldKey }, 'server')).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/The master key does not open this database's secrets \(GANTRY_SECRET_KEY changed\?\)\. Gantry will not start/),
    });
  }, 90_000);

  it('re-seals with a key from GANTRY_SECRET_KEY and says the variable must change; checks its arguments', async () => {
    const current = fs.readFileSync(keyFile, 'utf8').trim();
    const done = await cli({ GANTRY_SECRET_KEY: current }, 'rekey', '--new-key', 'a long passphrase for the new key');
    expect(done.stdout).toMatch(/^Re-sealed 2 secret value\(s\) with the new master key\.\nGANTRY_SECRET_KEY still holds the old key: set it to the new key before starting the server\.\n$/);
    expect(fs.readFileSync(keyFile, 'utf8').trim()).toBe(current);
    expect((await cli({ GANTRY_SECRET_KEY: 'a long passphrase for the new key' }, 'user', 'list')).stdout).toMatch(/\tkeeper\t/);
    await expect(cli({}, 'user', 'list')).rejects.toMatchObject({ code: 1, stderr: expect.stringMatching(/secret\.key changed\?/) });

    await expect(cli({}, 'rekey')).rejects.toMatchObject({ code: 1, stderr: expect.stringMatching(/--new-key KEY or --new-key-file FILE/) });
    await expect(cli({}, 'rekey', '--new-key', '  ')).rejects.toMatchObject({ code: 1, stderr: expect.stringMatching(/The new key is empty/) });
    await expect(cli({ GANTRY_SECRET_KEY: 'same' }, 'rekey', '--new-key', 'same')).rejects.toMatchObject({ code: 1, stderr: expect.stringMatching(/same as the current one/) });
  }, 90_000);
});

// A rekey that stopped between its commit and the rename of secret.key.new (killed, a full disk):
// the database opens only with the staged key. Simulated: the same re-sealing transaction run
// here, the staged file written, the rename left out.
describe('gantry rekey interrupted before the key file was replaced (built)', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gantry-rekey-crash-'));
  const keyFile = path.join(dir, 'secret.key');
  const stagedFile = `${keyFile}.new`;
  const cliEnv: NodeJS.ProcessEnv = { ...process.env, GANTRY_DATA_DIR: dir, GANTRY_LOG_LEVEL: 'silent', GANTRY_PORT: '0', GANTRY_HOST: '127.0.0.1' };
  delete cliEnv.GANTRY_SECRET_KEY;
  const cli = (...args: string[]) => run('node', [bin, ...args], { env: cliEnv });
  const config = loadConfig({ GANTRY_DATA_DIR: dir, GANTRY_LOG_LEVEL: 'silent' });

  async function withDb<T>(fn: (db: Db) => Promise<T>): Promise<T> {
    const db = createDb(config.dbUrl);
    try {
      return await fn(db);
    } finally {
      await db.close();
    }
  }
  const sealed = () => withDb(async (db) => (await db.db.selectFrom('access_key').select('secret').orderBy('id').execute()).map((r) => r.secret));

  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('says at start that secret.key.new opens the database, and a second rekey leaves it alone', async () => {
    await cli('migrate');
    const oldKey = fs.readFileSync(keyFile, 'utf8').trim();
    const { projectId, keyId } = await withDb(async (db) => {
      const s = createServices({ config, db, secretKey: parseSecretKey(oldKey), nodeId: 'cli-test' });
      const owner = await s.users.create({ username: 'keeper', name: 'Keeper', email: 'keeper@example.com', password: 'pw-keeper-1', admin: true, external: false, alert: false });
      const actor = { id: owner.id, admin: true };
      const project = await s.projects.create(actor, projectCreateSchema.parse({ name: 'Interrupted' }));
      const input = keyCreateSchema.parse({ name: 'k', type: 'login_password', login_password: { login: 'deploy', password: 'crash-secret' } });
      return { projectId: project.id, keyId: (await s.keys.create(actor, project.id, input)).id };
    });
    const newKey = randomBytes(32).toString('base64');
    await withDb((db) => masterKeyService(db).rekey(new SecretBox(parseSecretKey(oldKey)), new SecretBox(parseSecretKey(newKey)), keyFile));
    fs.writeFileSync(stagedFile, `${newKey}\n`, { mode: 0o600 });
    const resealed = await sealed();

    // Start-up (the server and every command) names the file that holds the right key.
    const told = new RegExp(
      `The master key in ${keyFile} does not open this database's secrets, but ${stagedFile} does: a gantry rekey re-sealed the database and stopped before it replaced the key file\\. Move ${stagedFile} over ${keyFile}`,
    );
    await expect(cli('server')).rejects.toMatchObject({ code: 1, stderr: expect.stringMatching(told) });
    await expect(cli('user', 'list')).rejects.toMatchObject({ code: 1, stderr: expect.stringMatching(told) });

    // A second rekey refuses to touch the staged key, and changes nothing.
    await expect(cli('rekey', '--new-key', 'yet another key')).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringMatching(new RegExp(`${stagedFile} holds the key that opens this database: an earlier gantry rekey stopped before it replaced ${keyFile}\\. Move ${stagedFile} over ${keyFile} first`)),
    });
    expect(fs.readFileSync(stagedFile, 'utf8')).toBe(`${newKey}\n`);
    expect(fs.readFileSync(keyFile, 'utf8').trim()).toBe(oldKey);
    expect(await sealed()).toEqual(resealed);

    // Done as told: the server's key is the new one, the secrets open.
    fs.renameSync(stagedFile, keyFile);
    expect((await cli('user', 'list')).stdout).toMatch(/\tkeeper\t/);
    const secret = await withDb((db) => createServices({ config, db, secretKey: parseSecretKey(newKey), nodeId: 'cli-test' }).keys.secretOf(projectId, keyId));
    expect(secret).toMatchObject({ login: 'deploy', password: 'crash-secret' });
  }, 90_000);

  it('replaces a secret.key.new that does not open the database, and says so', async () => {
    fs.writeFileSync(stagedFile, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600 });
    const next = randomBytes(32).toString('base64');
    const done = await cli('rekey', '--new-key', next);
    expect(done.stderr).toBe(`Removed ${stagedFile}: left by an earlier gantry rekey, it does not open this database.\n`);
    expect(done.stdout).toMatch(/^Re-sealed 1 secret value\(s\) with the new master key\./);
    expect(fs.readFileSync(keyFile, 'utf8')).toBe(`${next}\n`);
    expect(fs.existsSync(stagedFile)).toBe(false);
    expect((await cli('user', 'list')).stdout).toMatch(/\tkeeper\t/);
  }, 90_000);
});
