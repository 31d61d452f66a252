import type { ExportedAuditEntry } from '../export-sink.js';

/** The structured data's id: `gantry@32473` (32473 is the enterprise number RFC 5612 sets aside for examples). */
export const SYSLOG_SD_ID = 'gantry@32473';
export const SYSLOG_APP_NAME = 'gantry';

/** Actions that are a warning (severity 4); every other entry is a notice (5). */
const WARNING_ACTIONS = new Set(['sign_in_failed', 'totp_failed', 'lockout', 'export_skipped']);

/** Printable US-ASCII without spaces, at most `max` characters, `-` when empty (RFC 5424's header fields). */
function headerField(v: string, max: number): string {
  const clean = v.replace(/[^\x21-\x7e]/g, '').slice(0, max);
  return clean || '-';
}

/** A structured data value: `"`, `\` and `]` escaped with a backslash (RFC 5424 section 6.3.3). */
function paramValue(v: unknown): string {
  return String(v).replace(/["\\\]]/g, (c) => `\\${c}`);
}

/** JSON with every non-ASCII character escaped: the message needs no BOM and survives any relay. */
export function asciiJson(value: unknown): string {
  return JSON.stringify(value).replace(
    /[\u007f-\uffff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/**
 * One entry as an RFC 5424 message: `<PRI>1 TIMESTAMP HOSTNAME gantry PROCID MSGID [SD] MSG`,
 * the action as MSGID, the entry's id, hash and main fields as structured data, and the whole
 * entry as JSON in MSG. `truncate` leaves out the changed fields (for a UDP datagram that would be too big).
 */
export function syslogMessage(
  e: ExportedAuditEntry,
  o: { facility: number; hostname: string; procId: string; truncate?: boolean },
): string {
  const severity = WARNING_ACTIONS.has(e.action) ? 4 : 5;
  const params: Array<[string, unknown]> = [
    ['id', e.id],
    ['hash', e.hash],
    ['action', e.action],
    ['object_type', e.object_type],
    ['object_id', e.object_id],
    ['project_id', e.project_id],
    ['actor', e.actor],
    ['auth_kind', e.auth_kind],
    ['ip', e.ip],
  ];
  const sd = `[${SYSLOG_SD_ID} ${params
    .filter(([, v]) => v !== null && v !== undefined)
    .map(([k, v]) => `${k}="${paramValue(v)}"`)
    .join(' ')}]`;
  const body = o.truncate ? { ...e, before: null, after: null, truncated: true } : e;
  return [
    `<${o.facility * 8 + severity}>1`,
    e.time,
    headerField(o.hostname, 255),
    SYSLOG_APP_NAME,
    headerField(o.procId, 128),
    headerField(e.action, 32),
    sd,
    asciiJson(body),
  ].join(' ');
}

/** RFC 6587 octet counting: the message's length in bytes, a space, the message. */
export function octetCounted(message: string): string {
  return `${Buffer.byteLength(message, 'utf8')} ${message}`;
}
