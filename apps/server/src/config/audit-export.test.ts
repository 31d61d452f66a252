import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.js';

const base = { GANTRY_DATA_DIR: '/tmp/gantry-config-test/data' };
const load = (env: Record<string, string>) => loadConfig({ ...base, ...env });
const problem = (env: Record<string, string>): string => {
  try {
    load(env);
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return (e as Error).message;
  }
  throw new Error('no configuration error');
};

describe('GANTRY_AUDIT_EXPORT_*', () => {
  it('is off unless a destination is set', () => {
    expect(load({}).auditExport).toEqual({
      file: undefined,
      syslog: undefined,
      webhook: undefined,
      maxPending: 100_000,
    });
  });

  it('reads a rotating file, a syslog address with default ports, and a Splunk webhook', () => {
    const c = load({
      GANTRY_AUDIT_EXPORT_FILE: '/var/log/gantry/audit.jsonl',
      GANTRY_AUDIT_EXPORT_FILE_MAX_MB: '5',
      GANTRY_AUDIT_EXPORT_FILE_KEEP: '3',
      GANTRY_AUDIT_EXPORT_SYSLOG: 'tls://logs.example.com',
      GANTRY_AUDIT_EXPORT_WEBHOOK_URL: 'https://splunk.example.com:8088/services/collector/event',
      GANTRY_AUDIT_EXPORT_WEBHOOK_FORMAT: 'splunk',
      GANTRY_AUDIT_EXPORT_WEBHOOK_TOKEN: 'hec-secret',
    }).auditExport;
    expect(c.file).toEqual({ path: '/var/log/gantry/audit.jsonl', maxBytes: 5 * 1024 * 1024, keep: 3 });
    expect(c.syslog).toEqual({ transport: 'tls', host: 'logs.example.com', port: 6514, ca: undefined, facility: 13 });
    expect(c.webhook).toMatchObject({ format: 'splunk', token: 'hec-secret' });
    expect(load({ GANTRY_AUDIT_EXPORT_SYSLOG: 'udp://[::1]' }).auditExport.syslog).toMatchObject({
      transport: 'udp',
      host: '::1',
      port: 514,
    });
    expect(load({ GANTRY_AUDIT_EXPORT_SYSLOG: 'tcp://10.0.0.5:1601' }).auditExport.syslog).toMatchObject({
      port: 1601,
    });
  });

  it('refuses bad values with clear messages that never repeat the webhook address or token', () => {
    expect(problem({ GANTRY_AUDIT_EXPORT_FILE: 'relative/audit.jsonl' })).toContain(
      'GANTRY_AUDIT_EXPORT_FILE must be an absolute path',
    );
    expect(problem({ GANTRY_AUDIT_EXPORT_SYSLOG: 'http://logs:514' })).toContain(
      'must be udp://host[:port], tcp://host[:port] or tls://host[:port]',
    );
    const plain = problem({ GANTRY_AUDIT_EXPORT_WEBHOOK_URL: 'http://collector.example.com/in?key=q-secret' });
    expect(plain).toContain('must be https://');
    expect(plain).not.toContain('q-secret');
    expect(problem({ GANTRY_AUDIT_EXPORT_WEBHOOK_URL: 'ftp://x.example.com/' })).toContain('must be an https:// URL');
    const splunk = problem({
      GANTRY_AUDIT_EXPORT_WEBHOOK_URL: 'https://s.example.com/',
      GANTRY_AUDIT_EXPORT_WEBHOOK_FORMAT: 'splunk',
    });
    expect(splunk).toContain('GANTRY_AUDIT_EXPORT_WEBHOOK_TOKEN is required');
    expect(problem({ GANTRY_AUDIT_EXPORT_WEBHOOK_FORMAT: 'xml' })).toContain('json or splunk');
    expect(problem({ GANTRY_AUDIT_EXPORT_WEBHOOK_TOKEN: 'tok-secret' })).not.toContain('tok-secret');
    expect(
      problem({ GANTRY_AUDIT_EXPORT_SYSLOG: 'tcp://logs', GANTRY_AUDIT_EXPORT_SYSLOG_CA_FILE: '/nonexistent.pem' }),
    ).toMatch(/needs a tls:\/\/ syslog address.*cannot be read/);
  });

  it('lets plain http through to this machine, or elsewhere with the explicit switch; reads a CA file', () => {
    expect(load({ GANTRY_AUDIT_EXPORT_WEBHOOK_URL: 'http://127.0.0.1:8088/in' }).auditExport.webhook).toMatchObject({
      format: 'json',
      token: undefined,
    });
    expect(load({ GANTRY_AUDIT_EXPORT_WEBHOOK_URL: 'http://localhost/in' }).auditExport.webhook).toBeDefined();
    expect(
      load({
        GANTRY_AUDIT_EXPORT_WEBHOOK_URL: 'http://collector.internal/in',
        GANTRY_AUDIT_EXPORT_WEBHOOK_ALLOW_HTTP: 'true',
      }).auditExport.webhook,
    ).toBeDefined();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gantry-ca-'));
    const ca = path.join(dir, 'ca.pem');
    fs.writeFileSync(ca, '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n');
    expect(
      load({ GANTRY_AUDIT_EXPORT_SYSLOG: 'tls://logs', GANTRY_AUDIT_EXPORT_SYSLOG_CA_FILE: ca }).auditExport.syslog?.ca,
    ).toContain('BEGIN CERTIFICATE');
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
