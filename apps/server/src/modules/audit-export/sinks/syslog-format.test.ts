import { describe, expect, it } from 'vitest';
import type { ExportedAuditEntry } from '../export-sink.js';
import { asciiJson, octetCounted, syslogMessage } from './syslog-format.js';
import { safeUrl, webhookBody } from './webhook-sink.js';

const entry: ExportedAuditEntry = {
  id: 42,
  time: '2026-11-26T10:00:00.123Z',
  actor: 'zoë',
  actor_id: 7,
  action: 'sign_in_failed',
  object_type: 'user',
  object_id: 7,
  project_id: null,
  before: null,
  after: { note: 'a "quoted" ] \\ value' },
  auth_kind: 'session',
  ip: '10.0.0.1',
  user_agent: 'Firefox',
  request_id: 'req-1',
  prev_hash: 'a'.repeat(64),
  hash: 'b'.repeat(64),
};

describe('syslog messages (RFC 5424)', () => {
  it('carries priority, version, time, host, app, process, action, structured data and the entry as JSON', () => {
    const m = syslogMessage(entry, { facility: 13, hostname: 'gantry host', procId: '123' });
    // Facility 13 (log audit) × 8 + severity 4 (warning: a failed sign-in).
    expect(
      m.startsWith('<108>1 2026-11-26T10:00:00.123Z gantryhost gantry 123 sign_in_failed [gantry@32473 id="42" '),
    ).toBe(true);
    expect(m).toContain(`hash="${'b'.repeat(64)}"`);
    expect(m).toContain('actor="zoë"');
    expect(m).not.toContain('project_id=');
    const json = m.slice(m.indexOf(' {"id":') + 1);
    expect(/^[\x20-\x7e]*$/.test(json)).toBe(true);
    expect(JSON.parse(json)).toEqual(entry);
    expect(syslogMessage({ ...entry, action: 'update' }, { facility: 13, hostname: 'h', procId: '1' })).toMatch(
      /^<109>1 /,
    );
  });

  it('escapes structured data values and leaves the changed fields out of a truncated message', () => {
    const m = syslogMessage(
      { ...entry, actor: 'a"b]c\\d' },
      { facility: 13, hostname: 'h', procId: '1', truncate: true },
    );
    expect(m).toContain('actor="a\\"b\\]c\\\\d"');
    expect(JSON.parse(m.slice(m.indexOf(' {"id":') + 1))).toMatchObject({ before: null, after: null, truncated: true });
  });

  it('frames by octet count (bytes, not characters)', () => {
    expect(octetCounted('zoë')).toBe('4 zoë');
    expect(asciiJson({ s: 'ë✓' })).toBe('{"s":"\\u00eb\\u2713"}');
  });
});

describe('webhook bodies', () => {
  it('are a JSON array (json) or Splunk HEC events one after another (splunk)', () => {
    expect(JSON.parse(webhookBody([entry, entry], 'json', 'h'))).toHaveLength(2);
    const events = webhookBody([entry, { ...entry, id: 43 }], 'splunk', 'node1')
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(events[1]).toEqual({
      time: 1795687200.123,
      host: 'node1',
      source: 'gantry',
      sourcetype: 'gantry:audit',
      event: { ...entry, id: 43 },
    });
  });

  it('show their address without credentials or query', () => {
    expect(safeUrl('https://user:pw@hec.example.com:8088/services/collector?token=x')).toBe(
      'https://hec.example.com:8088/services/collector',
    );
  });
});
