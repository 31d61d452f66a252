import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.js';

describe('GANTRY_FETCH_ALLOWED_HOSTS', () => {
  it('allows no host by default', () => {
    expect(loadConfig({}).fetchAllowedHosts).toEqual([]);
    expect(loadConfig({ GANTRY_FETCH_ALLOWED_HOSTS: ' ' }).fetchAllowedHosts).toEqual([]);
  });

  it('reads names and addresses, lower case, IPv6 without brackets', () => {
    const c = loadConfig({ GANTRY_FETCH_ALLOWED_HOSTS: 'CMDB.internal, 10.0.4.20,[fd00::1],,' });
    expect(c.fetchAllowedHosts).toEqual(['cmdb.internal', '10.0.4.20', 'fd00::1']);
  });

  it('refuses what is no host', () => {
    expect(() => loadConfig({ GANTRY_FETCH_ALLOWED_HOSTS: 'http://cmdb.internal/x' })).toThrow(ConfigError);
    expect(() => loadConfig({ GANTRY_FETCH_ALLOWED_HOSTS: 'a b' })).toThrow(/GANTRY_FETCH_ALLOWED_HOSTS/);
  });
});
