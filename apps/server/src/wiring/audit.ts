import type { Config } from '../config/config.js';
import type { Db } from '../db/db.js';
import type { AuditExportService } from '../modules/audit-export/audit-export.service.js';
import { auditTrailReader } from '../modules/audit-export/audit-trail-reader.js';
import { createAuditExport } from '../modules/audit-export/create-audit-export.js';
import { WakingAuditRepository } from '../modules/audit-export/waking-audit-repository.js';
import { AuditRepository } from '../modules/audit/audit.repository.js';
import { AuditService } from '../modules/audit/audit.service.js';
import type { ProjectsService } from '../modules/projects/projects.service.js';
import type { Clock } from '../platform/clock.js';

export interface AuditDeps {
  config: Config;
  db: Db;
  clock: Clock;
  node: string;
  projects: ProjectsService;
}

/**
 * The audit trail and its export to a SIEM. The services that record entries are handed `audit`
 * afterwards (their `audit` fields), by whoever wires them.
 */
export function createAudit({ config, db, clock, node, projects }: AuditDeps): {
  audit: AuditService;
  auditExport: AuditExportService;
} {
  // A project's owners read its entries: their role comes from the project's members.
  // Export to a SIEM reads the trail from the database; recording an entry only wakes it.
  const auditExport = createAuditExport({
    config: config.auditExport,
    db: db.db,
    trail: auditTrailReader(new AuditRepository(db.db)),
    recorder: { record: (r) => audit.record(r) },
    clock,
    nodeId: node,
    log: (_level, line) => void (config.logLevel !== 'silent' && process.stderr.write(`${line}\n`)),
  });
  const audit = new AuditService(
    new WakingAuditRepository(db.db, () => auditExport.wake()),
    clock,
    async (projectId, userId) => (await projects.membership(projectId, userId)).role,
  );
  return { audit, auditExport };
}
