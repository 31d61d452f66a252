import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError } from './config.js';
import { loadRunnerConfig } from './runner-config.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gantry-runner-config-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
const keyFile = path.join(dir, 'runner.pem');
fs.writeFileSync(keyFile, 'key text', { mode: 0o600 });
const required = {
  GANTRY_RUNNER_SERVER_URL: 'https://gantry.example.com/',
  GANTRY_RUNNER_TOKEN: 'tok',
  GANTRY_RUNNER_PRIVATE_KEY_FILE: keyFile,
};

describe('runner config', () => {
  it('has the documented defaults, the key read from its file', () => {
    const c = loadRunnerConfig(required);
    expect(c).toMatchObject({
      serverUrl: 'https://gantry.example.com',
      token: 'tok',
      privateKey: 'key text',
      workDir: path.resolve('./runner-data'),
      pollMs: 1000,
      checkoutCacheEntries: 32,
      privateKeyFile: keyFile,
    });
  });

  it('keeps as many checkouts as asked, none for 0', () => {
    expect(loadRunnerConfig({ ...required, GANTRY_CHECKOUT_CACHE_ENTRIES: '0' }).checkoutCacheEntries).toBe(0);
    expect(loadRunnerConfig({ ...required, GANTRY_CHECKOUT_CACHE_ENTRIES: '4' }).checkoutCacheEntries).toBe(4);
  });

  it('lists every bad value, and says when the key file cannot be read', () => {
    let error: unknown;
    try {
      loadRunnerConfig({ ...required, GANTRY_RUNNER_POLL_MS: '5', GANTRY_CHECKOUT_CACHE_ENTRIES: '-2' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(/GANTRY_RUNNER_POLL_MS.*GANTRY_CHECKOUT_CACHE_ENTRIES/);
    expect(() => loadRunnerConfig({ ...required, GANTRY_RUNNER_PRIVATE_KEY_FILE: path.join(dir, 'missing') })).toThrow(
      /cannot be read/,
    );
  });
});
