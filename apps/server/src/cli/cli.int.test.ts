import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const bin = path.resolve(import.meta.dirname, '../../bin/gantry.mjs');
const built = fs.existsSync(path.resolve(import.meta.dirname, '../../dist/cli/main.js'));
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gantry-cli-'));
const env = { ...process.env, GANTRY_DATA_DIR: dataDir, GANTRY_LOG_LEVEL: 'silent' };
const gantry = (...args: string[]) => run('node', [bin, ...args], { env });

// The CLI runs from the build; `npm test` builds first.
describe('gantry CLI (built)', () => {
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

  it('fails with a clear message and a non-zero exit', async () => {
    await expect(gantry('user', 'add', '--login', 'x', '--email', 'x@e.io', '--password', 'p')).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/Name is required/),
    });
    await expect(gantry('user', 'delete', '--login', 'nobody')).rejects.toMatchObject({ stderr: expect.stringMatching(/No user with login nobody/) });
    await expect(gantry('frobnicate')).rejects.toMatchObject({ stderr: expect.stringMatching(/Unknown command/) });
  });
});
