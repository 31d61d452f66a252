import { z } from 'zod';

/** Kinds of audit export destination: JSON lines to a file, RFC 5424 syslog, an HTTP(S) webhook. */
export const AUDIT_EXPORT_KINDS = ['file', 'syslog', 'webhook'] as const;
export type AuditExportKind = (typeof AUDIT_EXPORT_KINDS)[number];

/** One destination of `GET /api/audit/export`: where it goes (never a secret) and how far it got. */
export const auditExportDestinationSchema = z.object({
  /** The destination's cursor name: `file:<node id>`, `syslog` or `webhook`. */
  key: z.string(),
  kind: z.enum(AUDIT_EXPORT_KINDS),
  /** A file path, `tcp://host:port`, or the webhook's address without credentials or query. */
  target: z.string(),
  /** `jsonl`, `rfc5424`, `json` or `splunk`. */
  format: z.string(),
  /** The id of the last entry delivered (or skipped); 0 before the first. */
  last_exported_id: z.number(),
  /** Entries recorded and not yet delivered. */
  pending: z.number(),
  /** Entries never delivered: pruned by retention first, or skipped past the pending limit. */
  not_exported: z.number(),
  /** Failed deliveries in a row (it is retried with a growing delay, up to 30 s). */
  attempts: z.number(),
  last_success: z.string().nullable(),
  last_error: z.string().nullable(),
  last_error_time: z.string().nullable(),
  /** The node exporting to it now (several nodes on one database take turns); null when none. */
  node: z.string().nullable(),
});
export type AuditExportDestination = z.infer<typeof auditExportDestinationSchema>;

/** `GET /api/audit/export` (admins). */
export const auditExportStatusSchema = z.object({ destinations: z.array(auditExportDestinationSchema) });
export type AuditExportStatus = z.infer<typeof auditExportStatusSchema>;
