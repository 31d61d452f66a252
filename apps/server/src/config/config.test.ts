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
    expect(c.totp).toEqual({ enabled: false, allowRecovery: true });
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
      GANTRY_TOTP_ENABLED: 'true',
      GANTRY_TOTP_ALLOW_RECOVERY: 'false',
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
      totp: { enabled: true, allowRecovery: false },
    });
  });

  it('keeps task workspaces beside the data folder and sandboxes tasks when it can, by default', () => {
    const c = loadConfig({ GANTRY_DATA_DIR: '/srv/gantry/data' });
    expect(c.taskDir).toBe('/srv/gantry/data-tasks');
    expect(c.taskSandbox).toBe('auto');
    expect(loadConfig({ GANTRY_TASK_DIR: '/var/gantry-work', GANTRY_TASK_SANDBOX: 'bwrap' })).toMatchObject({ taskDir: '/var/gantry-work', taskSandbox: 'bwrap' });
    expect(loadConfig({ GANTRY_TASK_SANDBOX: 'OFF' }).taskSandbox).toBe('off');
    expect(() => loadConfig({ GANTRY_TASK_SANDBOX: 'docker' })).toThrow(/GANTRY_TASK_SANDBOX: expected auto, bwrap or off/);
    expect(() => loadConfig({ GANTRY_DATA_DIR: '/srv/d', GANTRY_TASK_DIR: '/srv/d' })).toThrow(/GANTRY_TASK_DIR must not be the data folder or contain it/);
    expect(() => loadConfig({ GANTRY_DATA_DIR: '/srv/d', GANTRY_TASK_DIR: '/srv' })).toThrow(/GANTRY_TASK_DIR/);
  });

  it('allows no local repository path unless GANTRY_ALLOWED_LOCAL_PATHS lists absolute folders', () => {
    expect(loadConfig({}).allowedLocalPaths).toEqual([]);
    expect(loadConfig({ GANTRY_ALLOWED_LOCAL_PATHS: ' /srv/git/ , /opt/repos,' }).allowedLocalPaths).toEqual(['/srv/git', '/opt/repos']);
    expect(() => loadConfig({ GANTRY_ALLOWED_LOCAL_PATHS: '/srv/git,repos' })).toThrow(/GANTRY_ALLOWED_LOCAL_PATHS: expected absolute paths, got "repos"/);
  });

  it('keeps 32 checkouts by default, any number asked, none for 0', () => {
    expect(loadConfig({}).checkoutCacheEntries).toBe(32);
    expect(loadConfig({ GANTRY_CHECKOUT_CACHE_ENTRIES: '5' }).checkoutCacheEntries).toBe(5);
    expect(loadConfig({ GANTRY_CHECKOUT_CACHE_ENTRIES: '0' }).checkoutCacheEntries).toBe(0);
    expect(() => loadConfig({ GANTRY_CHECKOUT_CACHE_ENTRIES: '-1' })).toThrow(/GANTRY_CHECKOUT_CACHE_ENTRIES/);
    expect(() => loadConfig({ GANTRY_CHECKOUT_CACHE_ENTRIES: 'many' })).toThrow(/GANTRY_CHECKOUT_CACHE_ENTRIES/);
  });

  it('fails listing every bad value', () => {
    expect(() => loadConfig({ GANTRY_PORT: 'abc', GANTRY_NON_ADMIN_CAN_CREATE_PROJECT: 'maybe' })).toThrow(ConfigError);
    try {
      loadConfig({ GANTRY_PORT: 'abc', GANTRY_NON_ADMIN_CAN_CREATE_PROJECT: 'maybe' });
    } catch (e) {
      expect(String(e)).toMatch(/GANTRY_PORT/);
      expect(String(e)).toMatch(/GANTRY_NON_ADMIN_CAN_CREATE_PROJECT/);
    }
    expect(() => loadConfig({ GANTRY_DB_URL: 'mongodb://x' })).toThrow(/GANTRY_DB_URL/);
    expect(() => loadConfig({ GANTRY_TOTP_ENABLED: 'sometimes' })).toThrow(/GANTRY_TOTP_ENABLED/);
    expect(() => loadConfig({ GANTRY_TOTP_ALLOW_RECOVERY: '2' })).toThrow(/GANTRY_TOTP_ALLOW_RECOVERY/);
  });

  it('takes a two-factor requirement, which turns two-factor sign-in on unless it was turned off', () => {
    expect(loadConfig({}).totp.required).toBeUndefined();
    expect(loadConfig({ GANTRY_TOTP_REQUIRED: 'All' }).totp).toEqual({ enabled: true, allowRecovery: true, required: 'all' });
    expect(loadConfig({ GANTRY_TOTP_REQUIRED: 'off' }).totp).toEqual({ enabled: false, allowRecovery: true, required: 'off' });
    expect(loadConfig({ GANTRY_TOTP_REQUIRED: '' }).totp.required).toBeUndefined();
    expect(() => loadConfig({ GANTRY_TOTP_REQUIRED: 'admins', GANTRY_TOTP_ENABLED: 'false' })).toThrow(/GANTRY_TOTP_REQUIRED needs/);
    expect(() => loadConfig({ GANTRY_TOTP_REQUIRED: 'everyone' })).toThrow(/GANTRY_TOTP_REQUIRED: expected off, admins or all/);
    expect(loadConfig({ GANTRY_LDAP_OWN_MFA: 'true' }).ldapOwnMfa).toBe(true);
    expect(loadConfig({}).ldapOwnMfa).toBe(false);
  });

  it('takes a MySQL or MariaDB URL', () => {
    expect(loadConfig({ GANTRY_DB_URL: 'mysql://u@h/db' }).dbUrl).toBe('mysql://u@h/db');
    expect(loadConfig({ GANTRY_DB_URL: 'mariadb://u@h/db' }).dbUrl).toBe('mariadb://u@h/db');
  });

  it('has every notification channel off by default', () => {
    expect(loadConfig({}).notifications).toEqual({});
    // A host alone does not send mail: GANTRY_EMAIL_ALERT is the switch.
    expect(loadConfig({ GANTRY_EMAIL_HOST: 'smtp.example.com', GANTRY_SLACK_URL: '' }).notifications).toEqual({});
  });

  it('reads the notification channels', () => {
    const c = loadConfig({
      GANTRY_EMAIL_ALERT: 'yes',
      GANTRY_EMAIL_HOST: 'smtp.example.com',
      GANTRY_EMAIL_PORT: '465',
      GANTRY_EMAIL_SECURE: 'true',
      GANTRY_EMAIL_USERNAME: 'mailer',
      GANTRY_EMAIL_PASSWORD: 'mail-pw',
      GANTRY_EMAIL_SENDER: 'ci@example.com',
      GANTRY_SLACK_URL: 'https://hooks.slack.example/services/T/B/x',
      GANTRY_TELEGRAM_TOKEN: '123:abc',
      GANTRY_TELEGRAM_CHAT: '-1001',
      GANTRY_TELEGRAM_API: 'http://127.0.0.1:9000/',
      GANTRY_TEAMS_URL: 'https://teams.example/webhook/1',
      GANTRY_WEBHOOK_URL: 'http://hooks.example/gantry',
    });
    expect(c.notifications).toEqual({
      email: {
        host: 'smtp.example.com',
        port: 465,
        secure: true,
        username: 'mailer',
        password: 'mail-pw',
        sender: 'ci@example.com',
      },
      slackUrl: 'https://hooks.slack.example/services/T/B/x',
      telegram: { token: '123:abc', chat: '-1001', api: 'http://127.0.0.1:9000' },
      teamsUrl: 'https://teams.example/webhook/1',
      webhookUrl: 'http://hooks.example/gantry',
    });
    const defaults = loadConfig({
      GANTRY_EMAIL_ALERT: 'on',
      GANTRY_EMAIL_HOST: 'mx',
      GANTRY_TELEGRAM_TOKEN: 't',
    }).notifications;
    expect(defaults.email).toEqual({
      host: 'mx',
      port: 25,
      secure: false,
      username: undefined,
      password: undefined,
      sender: 'gantry@localhost',
    });
    expect(defaults.telegram).toEqual({ token: 't', chat: undefined, api: 'https://api.telegram.org' });
  });

  it('lists bad notification values without repeating them', () => {
    const bad = {
      GANTRY_EMAIL_PORT: '0',
      GANTRY_EMAIL_SECURE: 'sometimes',
      GANTRY_SLACK_URL: 'hooks/secret-path',
      GANTRY_TEAMS_URL: 'ftp://x/secret-teams',
      GANTRY_WEBHOOK_URL: 'nope',
    };
    expect(() => loadConfig(bad)).toThrow(ConfigError);
    let message = '';
    try {
      loadConfig(bad);
    } catch (e) {
      message = String(e);
    }
    for (const name of Object.keys(bad)) expect(message).toContain(name);
    expect(message).not.toContain('secret-path');
    expect(message).not.toContain('secret-teams');
    expect(() => loadConfig({ GANTRY_EMAIL_ALERT: 'true' })).toThrow(/GANTRY_EMAIL_HOST is required/);
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
