import type { Kysely } from 'kysely';
import type { AuditExportConfig } from '../../config/audit-export.js';
import type { Database } from '../../db/types.js';
import type { Clock } from '../../platform/clock.js';
import type { AuditRecorder } from '../audit/audit.port.js';
import { AuditExportRepository } from './audit-export.repository.js';
import { AuditExportService, type AuditExportOptions } from './audit-export.service.js';
import type { AuditTrailReader } from './audit-trail-reader.js';
import type { ExportSink } from './export-sink.js';
import { FileSink } from './sinks/file-sink.js';
import { SyslogSink } from './sinks/syslog-sink.js';
import { WebhookSink } from './sinks/webhook-sink.js';

/** The sinks the configuration asks for (none: export is off). */
export function exportSinks(config: AuditExportConfig, nodeId: string): ExportSink[] {
  const sinks: ExportSink[] = [];
  if (config.file) sinks.push(new FileSink(config.file, nodeId));
  if (config.syslog) sinks.push(new SyslogSink(config.syslog));
  if (config.webhook) sinks.push(new WebhookSink(config.webhook));
  return sinks;
}

/** The export service for the configuration (its loop starts with `start()`). */
export function createAuditExport(deps: {
  config: AuditExportConfig;
  db: Kysely<Database>;
  trail: AuditTrailReader;
  recorder: AuditRecorder;
  clock: Clock;
  nodeId: string;
  log: (level: 'info' | 'warn' | 'error', line: string) => void;
  options?: Partial<AuditExportOptions>;
  /** Replaces the configured sinks (tests). */
  sinks?: ExportSink[];
}): AuditExportService {
  return new AuditExportService({
    repo: new AuditExportRepository(deps.db),
    trail: deps.trail,
    sinks: deps.sinks ?? exportSinks(deps.config, deps.nodeId),
    recorder: deps.recorder,
    clock: deps.clock,
    nodeId: deps.nodeId,
    log: deps.log,
    options: { maxPending: deps.config.maxPending, ...deps.options },
  });
}
