import type { AuditEntry, AuditExportKind } from '@gantry/contracts';

/**
 * One audit entry as it is exported: the API's shape plus the chain's hashes. `id` grows by one
 * per entry and `hash` is unique: a receiver that sees an id again (a delivery retried after the
 * receiver took it but before Gantry heard so) drops it.
 */
export interface ExportedAuditEntry extends AuditEntry {
  prev_hash: string;
  hash: string;
}

/** A destination's adapter: delivers a batch or throws (the batch is then retried as a whole). */
export interface ExportSink {
  /** The destination's cursor row: `file:<node id>`, `syslog`, `webhook`. */
  readonly key: string;
  readonly kind: AuditExportKind;
  /** Where it goes, for admins: never a token, a password or a URL's query. */
  readonly target: string;
  readonly format: string;
  /** Resolves once the receiver has the entries (as far as its protocol can tell). */
  send(entries: readonly ExportedAuditEntry[]): Promise<void>;
  /**
   * The id of the last entry the destination holds, when it can be read back (a file): after a
   * crash between writing and moving the cursor, the written entries are not written again.
   */
  lastDelivered?(): Promise<number | null>;
  close?(): Promise<void>;
}

/** An error's message for `last_error`: short, one line. */
export function describeSendError(e: unknown): string {
  const err = e as NodeJS.ErrnoException;
  const text = (err?.message || String(e)).replace(/\s+/g, ' ').trim();
  return text.length > 300 ? `${text.slice(0, 297)}...` : text;
}
