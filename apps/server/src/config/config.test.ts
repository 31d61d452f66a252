import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.js';
import { resolveSecretKey } from './secret-key.js';

describe('config', () => {
  it('has the documented defaults', () => {
    const c = loadConfig({});
    expect(c.port).toBe(3000);
    expect(c.host).toBe('0.0.0.0');
    expect(c.dataDir).toBe(path.resolve('./data'));
    expect(c.dbUrl).toBe(`sqlite:${path.resolve('./data/gantry.sqlite')}`);
    expect(c.nonAdminCanCreateProject).toBe(false);
    expect(c.admin).toBeUndefined();
  });

  it('reads every variable', () => {
    const c = loadConfig({
      GANTRY_PORT: '8080',
      GANTRY_HOST: '127.0.0.1',
      GANTRY_DATA_DIR: '/tmp/x',
      GANTRY_DB_URL: 'postgres://u@h/db',
      GANTRY_SECRET_KEY: 'k',
      GANTRY_WEB_HOST: 'https://g.example/',
      GANTRY_ADMIN: 'root',
      GANTRY_ADMIN_PASSWORD: 'pw',
      GANTRY_ADMIN_EMAIL: 'r@e.io',
      GANTRY_ADMIN_NAME: 'Root',
      GANTRY_NON_ADMIN_CAN_CREATE_PROJECT: 'true',
    });
    expect(c).toMatchObject({
      port: 8080,
      host: '127.0.0.1',
      dataDir: '/tmp/x',
      dbUrl: 'postgres://u@h/db',
      secretKey: 'k',
      webHost: 'https://g.example',
      admin: { login: 'root', password: 'pw', email: 'r@e.io', name: 'Root' },
      nonAdminCanCreateProject: true,
    });
  });

  it('fails listing every bad value', () => {
    expect(() => loadConfig({ GANTRY_PORT: 'abc', GANTRY_NON_ADMIN_CAN_CREATE_PROJECT: 'maybe' })).toThrow(ConfigError);
    try {
      loadConfig({ GANTRY_PORT: 'abc', GANTRY_NON_ADMIN_CAN_CREATE_PROJECT: 'maybe' });
    } catch (e) {
      expect(String(e)).toMatch(/GANTRY_PORT/);
      expect(String(e)).toMatch(/GANTRY_NON_ADMIN_CAN_CREATE_PROJECT/);
    }
    expect(() => loadConfig({ GANTRY_DB_URL: 'mysql://x' })).toThrow(/GANTRY_DB_URL/);
  });
});

describe('secret key', () => {
  it('is generated once into the data dir with mode 0600 and read back', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gantry-key-'));
    const a = resolveSecretKey(undefined, dir);
    const file = path.join(dir, 'secret.key');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(a).toHaveLength(32);
    expect(resolveSecretKey(undefined, dir).equals(a)).toBe(true);
    expect(resolveSecretKey('configured', dir).equals(a)).toBe(false);
    expect(resolveSecretKey('configured', dir)).toHaveLength(32);
    fs.rmSync(dir, { recursive: true });
  });
});
