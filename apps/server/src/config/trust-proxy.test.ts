import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.js';
import { hostAddresses, trustProxyWarnings } from './trust-proxy.js';

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

describe('start-up warnings about trusted proxies', () => {
  const host = ['192.0.2.10', '2001:db8::10'];
  const warn = (value: string, tasksIsolated: boolean) =>
    trustProxyWarnings(loadConfig({ GANTRY_TRUST_PROXY: value }).trustProxy, { tasksIsolated, hostAddresses: host });

  it("says nothing for no trust, or for a proxy's exact address elsewhere", () => {
    expect(warn('', false)).toEqual([]);
    expect(warn('10.0.0.5', false)).toEqual([]);
    expect(warn('10.0.0.5, 2001:db8:1::5', true)).toEqual([]);
  });

  it('warns that true lets anyone, tasks included, claim any address, sandboxed or not', () => {
    for (const isolated of [false, true]) {
      const [line, ...rest] = warn('true', isolated);
      expect(rest).toEqual([]);
      expect(line).toMatch(/^GANTRY_TRUST_PROXY is true: .*a task on this host included.*proxy's exact address/);
    }
  });

  it("warns when trust covers loopback and tasks share the host's network; not when they have their own", () => {
    for (const value of [
      '127.0.0.1',
      'loopback',
      '::1',
      '127.0.0.0/8',
      '127.1.2.3',
      '0.0.0.0/0',
      '::ffff:127.0.0.1',
      '10.0.0.5,127.0.0.1',
    ]) {
      const lines = warn(value, false);
      expect(lines, value).toHaveLength(value === '0.0.0.0/0' ? 2 : 1);
      expect(lines[0], value).toMatch(
        /^GANTRY_TRUST_PROXY trusts loopback \(.+\) while tasks share this host's network: a task can connect to Gantry from 127\.0\.0\.1/,
      );
      expect(
        warn(value, true).filter((l) => l.includes('loopback')),
        value,
      ).toEqual([]);
    }
    expect(warn('10.0.0.5,127.0.0.1', false)[0]).toContain('trusts loopback (127.0.0.1)');
  });

  it("warns, sandboxed or not, when trust holds one of the host's own addresses: tasks connect from them", () => {
    for (const [value, own] of [
      ['192.0.2.10', '192.0.2.10'],
      ['192.0.2.0/24', '192.0.2.10'],
      ['2001:db8::/32', '2001:db8::10'],
      ['0.0.0.0/0', '192.0.2.10'],
    ]) {
      const lines = warn(value!, true);
      expect(lines, value).toEqual([
        `GANTRY_TRUST_PROXY trusts ${value}, which holds this host's own address ${own}: tasks on this host connect from it and could claim any client address in X-Forwarded-For; list the proxy's exact address instead`,
      ]);
    }
  });

  it("lists this host's own addresses, loopback aside", () => {
    const own = hostAddresses();
    expect(own).not.toContain('127.0.0.1');
    expect(own).not.toContain('::1');
  });
});
