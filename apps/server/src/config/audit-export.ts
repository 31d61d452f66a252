import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';

/** How syslog messages travel: RFC 5426 (UDP), RFC 6587 octet counting (TCP), RFC 5425 (TLS). */
export type SyslogTransport = 'udp' | 'tcp' | 'tls';
/** The webhook's body: Gantry's own JSON (an array of entries) or Splunk's HTTP Event Collector format. */
export type WebhookFormat = 'json' | 'splunk';

/** Where audit entries are exported to (see the README's "Audit export to a SIEM"); each part undefined when off. */
export interface AuditExportConfig {
  /** JSON lines appended to `path`, rotated to `path.1` … `path.<keep>` past `maxBytes`. */
  file: { path: string; maxBytes: number; keep: number } | undefined;
  /** RFC 5424 messages to a syslog receiver; `ca`: PEM trusted for TLS (undefined: the system's CAs). */
  syslog:
    { transport: SyslogTransport; host: string; port: number; ca: string | undefined; facility: number } | undefined;
  /**
   * POSTs of entries to an HTTP(S) receiver. `token` is a secret: it goes in the Authorization
   * header only (`Splunk <token>` or `Bearer <token>`), never in a log line or an API answer.
   */
  webhook: { url: string; format: WebhookFormat; token: string | undefined; ca: string | undefined } | undefined;
  /** A destination further behind than this skips ahead (and says how many entries it missed). */
  maxPending: number;
}

const text = z
  .string()
  .optional()
  .transform((v) => v?.trim() || undefined);

const flag = z
  .string()
  .optional()
  .transform((v, ctx): boolean => {
    if (v === undefined || v === '') return false;
    if (/^(1|true|yes|on)$/i.test(v)) return true;
    if (/^(0|false|no|off)$/i.test(v)) return false;
    ctx.addIssue({ code: 'custom', message: `expected true or false, got "${v}"` });
    return z.NEVER;
  });

/** The GANTRY_AUDIT_EXPORT_* settings (parsed in config.ts's schema). */
export const auditExportEnv = {
  GANTRY_AUDIT_EXPORT_FILE: text,
  GANTRY_AUDIT_EXPORT_FILE_MAX_MB: z.coerce.number().int().min(1).max(1_000_000).default(100),
  GANTRY_AUDIT_EXPORT_FILE_KEEP: z.coerce.number().int().min(0).max(1000).default(5),
  GANTRY_AUDIT_EXPORT_SYSLOG: text,
  GANTRY_AUDIT_EXPORT_SYSLOG_CA_FILE: text,
  // RFC 5424 facility number; 13 is "log audit".
  GANTRY_AUDIT_EXPORT_SYSLOG_FACILITY: z.coerce.number().int().min(0).max(23).default(13),
  // Never repeated in an error message: a URL may carry a credential in its query.
  GANTRY_AUDIT_EXPORT_WEBHOOK_URL: text,
  GANTRY_AUDIT_EXPORT_WEBHOOK_FORMAT: text,
  // Never logged, never repeated in an error message, never in an API answer.
  GANTRY_AUDIT_EXPORT_WEBHOOK_TOKEN: text,
  GANTRY_AUDIT_EXPORT_WEBHOOK_CA_FILE: text,
  GANTRY_AUDIT_EXPORT_WEBHOOK_ALLOW_HTTP: flag,
  GANTRY_AUDIT_EXPORT_MAX_PENDING: z.coerce.number().int().min(1).default(100_000),
};

type AuditExportEnv = { [K in keyof typeof auditExportEnv]?: z.output<(typeof auditExportEnv)[K]> };

const DEFAULT_SYSLOG_PORTS: Record<SyslogTransport, number> = { udp: 514, tcp: 601, tls: 6514 };

/** A host a plain-HTTP webhook may name without GANTRY_AUDIT_EXPORT_WEBHOOK_ALLOW_HTTP: this machine. */
function isLoopback(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127(\.\d{1,3}){3}$/.test(h);
}

function readCa(file: string, name: string, problems: string[]): string | undefined {
  try {
    const ca = fs.readFileSync(file, 'utf8');
    if (!ca.includes('-----BEGIN CERTIFICATE-----')) problems.push(`${name} must hold PEM certificates`);
    return ca;
  } catch {
    problems.push(`${name} cannot be read: ${file}`);
    return undefined;
  }
}

/** Parses `udp://host[:port]`, `tcp://…`, `tls://…`; null when it is none of them. */
function parseSyslogUrl(v: string): { transport: SyslogTransport; host: string; port: number } | null {
  const m = /^(udp|tcp|tls):\/\/(\[[0-9a-f:.]+\]|[^\s:/[\]]+)(?::(\d{1,5}))?\/?$/i.exec(v);
  if (!m) return null;
  const transport = m[1]!.toLowerCase() as SyslogTransport;
  const port = m[3] ? Number(m[3]) : DEFAULT_SYSLOG_PORTS[transport];
  if (port < 1 || port > 65535) return null;
  return { transport, host: m[2]!.replace(/^\[|\]$/g, ''), port };
}

/**
 * The export settings, with every bad combination listed for the start-up error (never the
 * webhook's URL or token).
 */
export function toAuditExportConfig(e: AuditExportEnv): { config: AuditExportConfig; problems: string[] } {
  const problems: string[] = [];
  let file: AuditExportConfig['file'];
  if (e.GANTRY_AUDIT_EXPORT_FILE) {
    if (!path.isAbsolute(e.GANTRY_AUDIT_EXPORT_FILE))
      problems.push('GANTRY_AUDIT_EXPORT_FILE must be an absolute path');
    else
      file = {
        path: e.GANTRY_AUDIT_EXPORT_FILE,
        maxBytes: (e.GANTRY_AUDIT_EXPORT_FILE_MAX_MB ?? 100) * 1024 * 1024,
        keep: e.GANTRY_AUDIT_EXPORT_FILE_KEEP ?? 5,
      };
  }

  let syslog: AuditExportConfig['syslog'];
  if (e.GANTRY_AUDIT_EXPORT_SYSLOG) {
    const target = parseSyslogUrl(e.GANTRY_AUDIT_EXPORT_SYSLOG);
    if (!target)
      problems.push('GANTRY_AUDIT_EXPORT_SYSLOG must be udp://host[:port], tcp://host[:port] or tls://host[:port]');
    let ca: string | undefined;
    if (e.GANTRY_AUDIT_EXPORT_SYSLOG_CA_FILE) {
      if (target && target.transport !== 'tls')
        problems.push('GANTRY_AUDIT_EXPORT_SYSLOG_CA_FILE needs a tls:// syslog address');
      ca = readCa(e.GANTRY_AUDIT_EXPORT_SYSLOG_CA_FILE, 'GANTRY_AUDIT_EXPORT_SYSLOG_CA_FILE', problems);
    }
    if (target) syslog = { ...target, ca, facility: e.GANTRY_AUDIT_EXPORT_SYSLOG_FACILITY ?? 13 };
  } else if (e.GANTRY_AUDIT_EXPORT_SYSLOG_CA_FILE) {
    problems.push('GANTRY_AUDIT_EXPORT_SYSLOG_CA_FILE needs GANTRY_AUDIT_EXPORT_SYSLOG');
  }

  let webhook: AuditExportConfig['webhook'];
  const format = (e.GANTRY_AUDIT_EXPORT_WEBHOOK_FORMAT ?? 'json').toLowerCase();
  if (format !== 'json' && format !== 'splunk')
    problems.push('GANTRY_AUDIT_EXPORT_WEBHOOK_FORMAT must be json or splunk');
  if (e.GANTRY_AUDIT_EXPORT_WEBHOOK_URL) {
    let url: URL | undefined;
    try {
      url = new URL(e.GANTRY_AUDIT_EXPORT_WEBHOOK_URL);
    } catch {
      problems.push('GANTRY_AUDIT_EXPORT_WEBHOOK_URL is not a URL');
    }
    if (url && url.protocol !== 'https:' && url.protocol !== 'http:')
      problems.push('GANTRY_AUDIT_EXPORT_WEBHOOK_URL must be an https:// URL');
    else if (url?.protocol === 'http:' && !isLoopback(url.hostname) && !e.GANTRY_AUDIT_EXPORT_WEBHOOK_ALLOW_HTTP)
      problems.push(
        'GANTRY_AUDIT_EXPORT_WEBHOOK_URL must be https:// (plain http:// only to this machine, or with GANTRY_AUDIT_EXPORT_WEBHOOK_ALLOW_HTTP=true)',
      );
    if (format === 'splunk' && !e.GANTRY_AUDIT_EXPORT_WEBHOOK_TOKEN)
      problems.push(
        'GANTRY_AUDIT_EXPORT_WEBHOOK_TOKEN is required with GANTRY_AUDIT_EXPORT_WEBHOOK_FORMAT=splunk (the HEC token)',
      );
    let ca: string | undefined;
    if (e.GANTRY_AUDIT_EXPORT_WEBHOOK_CA_FILE) {
      if (url?.protocol !== 'https:')
        problems.push('GANTRY_AUDIT_EXPORT_WEBHOOK_CA_FILE needs an https:// webhook URL');
      ca = readCa(e.GANTRY_AUDIT_EXPORT_WEBHOOK_CA_FILE, 'GANTRY_AUDIT_EXPORT_WEBHOOK_CA_FILE', problems);
    }
    if (url)
      webhook = {
        url: url.toString(),
        format: format === 'splunk' ? 'splunk' : 'json',
        token: e.GANTRY_AUDIT_EXPORT_WEBHOOK_TOKEN,
        ca,
      };
  } else {
    for (const k of ['GANTRY_AUDIT_EXPORT_WEBHOOK_TOKEN', 'GANTRY_AUDIT_EXPORT_WEBHOOK_CA_FILE'] as const)
      if (e[k]) problems.push(`${k} needs GANTRY_AUDIT_EXPORT_WEBHOOK_URL`);
  }
  return { config: { file, syslog, webhook, maxPending: e.GANTRY_AUDIT_EXPORT_MAX_PENDING ?? 100_000 }, problems };
}
