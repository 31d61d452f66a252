import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ConfigError, loadConfig } from '../../config/config.js';
import { escapeFilterValue, fillFilter } from './ldap-client.js';
import { cnOf, LdapDirectory } from './ldap-directory.js';
import { LdapService, type LdapServiceDeps } from './ldap.service.js';

describe('filter escaping (RFC 4515)', () => {
  it('escapes the characters that change a filter', () => {
    expect(escapeFilterValue('*)(uid=*')).toBe('\\2a\\29\\28uid=\\2a');
    expect(escapeFilterValue('a\\b\u0000c')).toBe('a\\5cb\\00c');
    expect(escapeFilterValue('jörg.o-brien@example.org')).toBe('jörg.o-brien@example.org');
  });

  it('fills each placeholder escaped and leaves unknown ones', () => {
    expect(fillFilter('(&(objectClass=person)(|(uid={login})(mail={login})))', { login: 'a*' })).toBe(
      '(&(objectClass=person)(|(uid=a\\2a)(mail=a\\2a)))',
    );
    expect(fillFilter('(member={dn})', { dn: 'cn=x\\,y,dc=org' })).toBe('(member=cn=x\\5c,y,dc=org)');
    expect(fillFilter('(x={other})', { login: 'a' })).toBe('(x={other})');
  });
});

describe('cnOf', () => {
  it('reads the cn of a group DN, escapes undone', () => {
    expect(cnOf('cn=devs,ou=groups,dc=example,dc=org')).toBe('devs');
    expect(cnOf('CN=Domain Admins,CN=Users,DC=corp,DC=example')).toBe('Domain Admins');
    expect(cnOf('cn=R\\26D\\, Europe,ou=groups')).toBe('R&D, Europe');
    expect(cnOf('ou=people,dc=example')).toBeUndefined();
  });
});

describe('LDAP configuration', () => {
  const base = {
    GANTRY_DATA_DIR: '/tmp/gantry-ldap-config/data',
    GANTRY_LDAP_ENABLED: 'true',
    GANTRY_LDAP_URL: 'ldap://ldap.example.org',
    GANTRY_LDAP_SEARCH_BASE: 'ou=people,dc=example,dc=org',
  };
  const fails = (env: Record<string, string>, message: string) =>
    expect(() => loadConfig({ ...base, ...env })).toThrow(message);

  it('is off unless enabled, and has working OpenLDAP defaults', () => {
    expect(loadConfig({ GANTRY_DATA_DIR: base.GANTRY_DATA_DIR, GANTRY_LDAP_URL: 'ldap://x' }).ldap).toBeUndefined();
    expect(loadConfig(base).ldap).toEqual({
      url: 'ldap://ldap.example.org',
      startTls: false,
      ca: undefined,
      bindDn: undefined,
      bindPassword: undefined,
      searchBase: 'ou=people,dc=example,dc=org',
      userFilter: '(uid={login})',
      attributes: { login: 'uid', name: 'cn', email: 'mail', groups: 'memberOf' },
      groupSearch: undefined,
      disabledFilter: undefined,
      timeoutMs: 5000,
    });
  });

  it('takes an Active Directory setup', () => {
    const ldap = loadConfig({
      ...base,
      GANTRY_LDAP_URL: 'ldaps://dc1.corp.example:636',
      GANTRY_LDAP_BIND_DN: 'CN=svc-gantry,OU=Service,DC=corp,DC=example',
      GANTRY_LDAP_BIND_PASSWORD: 'pw',
      GANTRY_LDAP_USER_FILTER: '(&(objectClass=user)(sAMAccountName={login}))',
      GANTRY_LDAP_LOGIN_ATTRIBUTE: 'sAMAccountName',
      GANTRY_LDAP_NAME_ATTRIBUTE: 'displayName',
      GANTRY_LDAP_GROUP_SEARCH_BASE: 'OU=Groups,DC=corp,DC=example',
      GANTRY_LDAP_GROUP_FILTER: '(member:1.2.840.113556.1.4.1941:={dn})',
    }).ldap;
    expect(ldap?.groupSearch).toEqual({
      base: 'OU=Groups,DC=corp,DC=example',
      filter: '(member:1.2.840.113556.1.4.1941:={dn})',
    });
    expect(ldap?.attributes.login).toBe('sAMAccountName');
  });

  it('fails at start on bad combinations, never showing the bind password', () => {
    fails({ GANTRY_LDAP_URL: '' }, 'GANTRY_LDAP_URL is required');
    fails({ GANTRY_LDAP_URL: 'http://ldap.example.org' }, 'GANTRY_LDAP_URL must be ldap://');
    fails(
      { GANTRY_LDAP_URL: 'ldaps://ldap.example.org', GANTRY_LDAP_STARTTLS: 'true' },
      'GANTRY_LDAP_STARTTLS is for ldap://',
    );
    fails({ GANTRY_LDAP_SEARCH_BASE: '' }, 'GANTRY_LDAP_SEARCH_BASE is required');
    fails({ GANTRY_LDAP_USER_FILTER: '(uid=alice)' }, 'must contain {login}');
    fails({ GANTRY_LDAP_USER_FILTER: '(uid={login}' }, 'GANTRY_LDAP_USER_FILTER is not a valid LDAP filter');
    fails({ GANTRY_LDAP_BIND_DN: 'cn=svc' }, 'GANTRY_LDAP_BIND_PASSWORD is required');
    fails({ GANTRY_LDAP_GROUP_FILTER: '(member={dn})' }, 'needs GANTRY_LDAP_GROUP_SEARCH_BASE');
    fails(
      { GANTRY_LDAP_GROUP_SEARCH_BASE: 'ou=groups', GANTRY_LDAP_GROUP_FILTER: '(cn=all)' },
      'must contain {dn} or {login}',
    );
    fails(
      { GANTRY_LDAP_CA_FILE: '/nonexistent/ca.pem', GANTRY_LDAP_STARTTLS: 'true' },
      'GANTRY_LDAP_CA_FILE cannot be read',
    );
    fails({ GANTRY_LDAP_CA_FILE: '/etc/hostname' }, 'needs an ldaps:// URL or GANTRY_LDAP_STARTTLS');
    fails({ GANTRY_PASSWORD_LOGIN_DISABLED: 'true' }, 'GANTRY_PASSWORD_LOGIN_DISABLED');
    fails({ GANTRY_LDAP_LOGIN_ATTRIBUTE: 'uid)(x' }, 'is not an attribute name');
    try {
      loadConfig({ ...base, GANTRY_LDAP_BIND_PASSWORD: 'very-secret-pw', GANTRY_LDAP_SEARCH_BASE: '' });
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      expect((err as Error).message).not.toContain('very-secret-pw');
    }
  });

  it('reads a PEM CA file', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gantry-ldap-ca-'));
    const file = path.join(dir, 'ca.pem');
    fs.writeFileSync(file, '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n');
    try {
      expect(
        loadConfig({ ...base, GANTRY_LDAP_URL: 'ldaps://ldap.example.org', GANTRY_LDAP_CA_FILE: file }).ldap?.ca,
      ).toContain('BEGIN CERTIFICATE');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('LdapService.start', () => {
  afterEach(() => vi.useRealTimers());

  it('checks the sessions at each interval until stopped', async () => {
    vi.useFakeTimers();
    const withSessions = vi.fn(async () => []);
    const svc = new LdapService({ repo: { withSessions } } as unknown as LdapServiceDeps);
    svc.start(1000);
    await vi.advanceTimersByTimeAsync(3500);
    expect(withSessions).toHaveBeenCalledTimes(3);
    svc.stop();
    await vi.advanceTimersByTimeAsync(5000);
    expect(withSessions).toHaveBeenCalledTimes(3);
  });
});

describe('password check', () => {
  it('never binds with an empty password (an unauthenticated bind many servers accept)', async () => {
    const connect = vi.fn(async () => {
      throw new Error('no connection expected');
    });
    const directory = new LdapDirectory(
      loadConfig({
        GANTRY_DATA_DIR: '/tmp/gantry-ldap-config/data',
        GANTRY_LDAP_ENABLED: 'true',
        GANTRY_LDAP_URL: 'ldap://ldap.example.org',
        GANTRY_LDAP_SEARCH_BASE: 'ou=people,dc=example,dc=org',
      }).ldap!,
      { connect },
    );
    expect(await directory.authenticate('alice', '')).toEqual({ kind: 'rejected' });
    expect(connect).not.toHaveBeenCalled();
  });
});
