import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { createProject, engines, signedInUser, uniq, useTestApp } from '../../test/harness.js';
import { encryptedPem, opensshPrivateKey, pemPrivateKey } from '../../test/keys.js';

describe.each(engines)('keys ($name)', (engine) => {
  const t = useTestApp(engine);

  it('creates each type, answers without material, and lists them', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const p = await createProject(admin);
    const ssh = await admin.post(`/api/project/${p}/keys`, { name: 'deploy', type: 'ssh', ssh: { login: 'root', private_key: pemPrivateKey() } });
    expect(ssh.statusCode).toBe(201);
    expect(ssh.json()).toEqual({
      id: expect.any(Number),
      project_id: p,
      name: 'deploy',
      type: 'ssh',
      string: '',
      login_password: { login: '', password: '' },
      ssh: { login: 'root', passphrase: '', private_key: '' },
      override_secret: false,
    });
    const openssh = await admin.post(`/api/project/${p}/keys`, { name: 'openssh', type: 'ssh', ssh: { private_key: opensshPrivateKey().privateKey } });
    expect(openssh.statusCode).toBe(201);
    const withPass = await admin.post(`/api/project/${p}/keys`, {
      name: 'openssh-pass',
      type: 'ssh',
      ssh: { private_key: opensshPrivateKey('s3cret').privateKey, passphrase: 's3cret' },
    });
    expect(withPass.statusCode).toBe(201);
    const lp = await admin.post(`/api/project/${p}/keys`, { name: 'vault', type: 'login_password', login_password: { login: 'u', password: 'p' } });
    expect(lp.json()).toMatchObject({ type: 'login_password' });
    expect(lp.json()).not.toHaveProperty('empty');
    const none = await admin.post(`/api/project/${p}/keys`, { name: 'none', type: 'none' });
    expect(none.json()).toMatchObject({ type: 'none' });
    expect(none.json()).not.toHaveProperty('empty');
    const list = (await admin.get(`/api/project/${p}/keys`)).json();
    expect(list.map((k: { name: string }) => k.name)).toEqual(['deploy', 'none', 'openssh', 'openssh-pass', 'vault']);
  });

  it.each([
    [{ type: 'none' }, 'Name is required'],
    [{ name: 'k' }, 'Type is required'],
    [{ name: 'k', type: 'rsa' }, 'Type is required'],
    [{ name: 'k', type: 'ssh', ssh: { private_key: '' } }, 'Private key is required'],
    [{ name: 'k', type: 'ssh' }, 'Private key is required'],
    [{ name: 'k', type: 'login_password', login_password: { login: 'x' } }, 'Password is required'],
  ])('rejects %o with "%s"', async (body, message) => {
    const admin = await signedInUser(t(), { admin: true });
    const p = await createProject(admin);
    const res = await admin.post(`/api/project/${p}/keys`, body);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: message, code: expect.any(String), field: expect.any(String) });
    expect((await admin.get(`/api/project/${p}/keys`)).json()).toEqual([]);
  });

  it('refuses a private key that does not parse, without echoing it', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const p = await createProject(admin);
    const junk = `-----BEGIN OPENSSH PRIVATE KEY-----\nbm90LWEta2V5LWNhbmFyeQ==\n-----END OPENSSH PRIVATE KEY-----`;
    const res = await admin.post(`/api/project/${p}/keys`, { name: 'bad', type: 'ssh', ssh: { private_key: junk } });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: 'Private key is not a valid private key', code: 'private_key_invalid', field: 'ssh.private_key' });
    expect(res.body).not.toContain('bm90LWEta2V5');
    const plain = await admin.post(`/api/project/${p}/keys`, { name: 'bad', type: 'ssh', ssh: { private_key: 'just text canary' } });
    expect(plain.json()).toEqual({ error: 'Private key is not a valid private key', code: 'private_key_invalid', field: 'ssh.private_key' });
    const wrongPass = await admin.post(`/api/project/${p}/keys`, {
      name: 'bad',
      type: 'ssh',
      ssh: { private_key: encryptedPem(), passphrase: 'wrong' },
    });
    expect(wrongPass.json()).toEqual({ error: 'Passphrase does not open the private key', code: 'passphrase_incorrect', field: 'ssh.passphrase' });
  });

  it('keeps the stored secret on edit unless override_secret is ticked', async () => {
    const ctx = t();
    const admin = await signedInUser(ctx, { admin: true });
    const p = await createProject(admin);
    const id = (await admin.post(`/api/project/${p}/keys`, { name: 'lp', type: 'login_password', login_password: { login: 'a', password: 'first' } })).json().id;
    const rename = await admin.put(`/api/project/${p}/keys/${id}`, { name: 'renamed', type: 'login_password', login_password: { login: '', password: '' } });
    expect(rename.statusCode).toBe(204);
    expect(await ctx.app.services.keys.secretOf(p, id)).toEqual({ type: 'login_password', login: 'a', password: 'first' });
    const missing = await admin.put(`/api/project/${p}/keys/${id}`, { name: 'renamed', type: 'login_password', override_secret: true, login_password: { login: 'b' } });
    expect(missing.json()).toEqual({ error: 'Password is required', code: 'field_required', label_key: 'password', field: 'login_password.password' });
    await admin.put(`/api/project/${p}/keys/${id}`, { name: 'renamed', type: 'login_password', override_secret: true, login_password: { login: 'b', password: 'second' } });
    expect(await ctx.app.services.keys.secretOf(p, id)).toEqual({ type: 'login_password', login: 'b', password: 'second' });
    const typeChange = await admin.put(`/api/project/${p}/keys/${id}`, { name: 'renamed', type: 'ssh' });
    expect(typeChange.json()).toEqual({ error: 'Private key is required', code: 'field_required', label_key: 'private_key', field: 'ssh.private_key' });
    expect((await admin.get(`/api/project/${p}/keys/${id}`)).json()).toMatchObject({ name: 'renamed', type: 'login_password' });
  });

  it('never lets a canary secret out: not in any answer, not in the database file or table', async () => {
    const ctx = t();
    const admin = await signedInUser(ctx, { admin: true });
    const p = await createProject(admin);
    const canary = `canary-${uniq('s')}-${Date.now()}`;
    await admin.post(`/api/project/${p}/keys`, { name: 'c1', type: 'login_password', login_password: { login: 'shown-login', password: canary } });
    const sshRes = await admin.post(`/api/project/${p}/keys`, { name: 'c2', type: 'ssh', ssh: { login: 'x', passphrase: canary, private_key: pemPrivateKey() } });
    expect(sshRes.statusCode).toBe(201);
    const env = await admin.post(`/api/project/${p}/environment`, { name: 'e', json: '{}', env: '{}', secrets: [{ name: 'TOKEN', secret: canary, type: 'env' }] });
    expect(env.statusCode).toBe(201);
    const answers = [
      ...[await admin.get(`/api/project/${p}/keys`), await admin.get(`/api/project/${p}/keys/${sshRes.json().id}`)],
      await admin.get(`/api/project/${p}/environment`),
      await admin.get(`/api/project/${p}/environment/${env.json().id}`),
      await admin.get(`/api/project/${p}/events/last`),
    ];
    for (const a of answers) {
      expect(a.statusCode).toBe(200);
      expect(a.body).not.toContain(canary);
    }
    expect(env.body).not.toContain(canary);
    if (engine.name === 'sqlite') {
      await sql`PRAGMA wal_checkpoint(FULL)`.execute(ctx.db.db);
      for (const f of fs.readdirSync(ctx.config.dataDir).filter((n) => n.startsWith('gantry.sqlite'))) {
        expect(fs.readFileSync(path.join(ctx.config.dataDir, f)).includes(canary)).toBe(false);
      }
    }
    const keys = await ctx.db.db.selectFrom('access_key').selectAll().execute();
    const secrets = await ctx.db.db.selectFrom('environment_secret').selectAll().execute();
    expect(JSON.stringify([keys, secrets])).not.toContain(canary);
    expect(JSON.stringify(keys)).toContain('v1:');
  });
});
