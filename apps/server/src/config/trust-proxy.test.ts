import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.js';

describe('GANTRY_TRUST_PROXY', () => {
  it('trusts no proxy by default', () => {
    expect(loadConfig({}).trustProxy).toBe(false);
    expect(loadConfig({ GANTRY_TRUST_PROXY: '' }).trustProxy).toBe(false);
    expect(loadConfig({ GANTRY_TRUST_PROXY: 'false' }).trustProxy).toBe(false);
  });

  it('reads a list of addresses, CIDRs and named ranges, or true for any hop', () => {
    expect(loadConfig({ GANTRY_TRUST_PROXY: ' 10.0.0.1, 10.1.0.0/16 ,::1,fd00::/8, loopback' }).trustProxy).toEqual([
      '10.0.0.1',
      '10.1.0.0/16',
      '::1',
      'fd00::/8',
      'loopback',
    ]);
    expect(loadConfig({ GANTRY_TRUST_PROXY: 'true' }).trustProxy).toBe(true);
  });

  it.each(['proxy.example', '10.0.0.1/33', '10.0.0.0/8/1', '2', '::1/129'])(
    'refuses %s, naming the variable',
    (value) => {
      expect(() => loadConfig({ GANTRY_TRUST_PROXY: `10.0.0.1,${value}` })).toThrow(ConfigError);
      expect(() => loadConfig({ GANTRY_TRUST_PROXY: `10.0.0.1,${value}` })).toThrow(
        new RegExp(`GANTRY_TRUST_PROXY: .*${value.replace(/[./]/g, '\\$&')}`),
      );
    },
  );
});
