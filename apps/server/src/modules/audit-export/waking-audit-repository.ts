import type { Kysely } from 'kysely';
import type { Database } from '../../db/types.js';
import { AuditRepository, type AuditEntryRow } from '../audit/audit.repository.js';

/**
 * The audit trail's repository that, once an entry is committed, wakes the exporter: recording
 * an entry never waits for its delivery (the exporter reads it from the database on its own time).
 */
export class WakingAuditRepository extends AuditRepository {
  constructor(
    db: Kysely<Database>,
    private readonly appended: () => void,
  ) {
    super(db);
  }

  override async append(build: Parameters<AuditRepository['append']>[0]): Promise<AuditEntryRow> {
    const row = await super.append(build);
    this.appended();
    return row;
  }
}
