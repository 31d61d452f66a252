import type { AuditRepository } from '../audit/audit.repository.js';
import { presentAuditEntry } from '../audit/audit.presenter.js';
import type { ExportedAuditEntry } from './export-sink.js';

/** What the exporter reads of the audit trail: its ends and its entries in order. */
export interface AuditTrailReader {
  /** The newest entry's id (`headId`) and the last id retention pruned (`anchorId`; entries after it remain). */
  ends(): Promise<{ headId: number; anchorId: number }>;
  /** Up to `limit` entries with ids above `afterId`, oldest first. */
  after(afterId: number, limit: number): Promise<ExportedAuditEntry[]>;
}

/** The audit trail's repository, read (never written) for export, entries in the API's shape with their hashes. */
export function auditTrailReader(repo: AuditRepository): AuditTrailReader {
  return {
    async ends() {
      const c = await repo.chain();
      return { headId: Number(c.head_id), anchorId: Number(c.anchor_id) };
    },
    async after(afterId, limit) {
      const rows = await repo.batch(afterId, limit);
      return rows.map((r) => ({ ...presentAuditEntry(r), prev_hash: r.prev_hash, hash: r.hash }));
    },
  };
}
