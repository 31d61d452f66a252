import type { ColumnType, Generated } from 'kysely';

export interface EventTable {
  id: Generated<number>;
  project_id: number | null;
  user_id: number | null;
  object_type: string;
  object_id: number | null;
  description: string;
  created: string;
}

/** One audit trail entry (migration 025): append-only, hash-chained; ids are given by the appender. */
export interface AuditEntryTable {
  id: number;
  time: string;
  actor_id: number | null;
  /** The actor's login when the entry was written: kept when the user is deleted. */
  actor_login: string | null;
  auth_kind: string;
  ip: string | null;
  user_agent: string | null;
  request_id: string | null;
  project_id: number | null;
  object_type: string;
  object_id: string | null;
  action: string;
  /** JSON of the changed fields before the change (secret fields only as "changed"). */
  before: string | null;
  after: string | null;
  prev_hash: string;
  hash: string;
}

/** The audit chain's one row (id 1): its head, the anchor pruning left, when pruning is due. */
export interface AuditChainTable {
  id: number;
  head_id: number;
  head_hash: string;
  anchor_id: number;
  anchor_hash: string;
  prune_due: string;
}

/** An audit export destination's cursor and lease (migration 026). */
export interface AuditExportCursorTable {
  /** `file:<node id>` (each node writes its own file), `syslog` or `webhook`. */
  destination: string;
  /** Where it goes, as shown to admins (no secret: no token, no URL query). */
  target: string;
  /** The id of the last audit entry delivered (or skipped). */
  last_id: number;
  lease_holder: string | null;
  lease_expires: string | null;
  /** Failed deliveries in a row (0 after a success). */
  attempts: ColumnType<number, number | undefined, number>;
  last_error: string | null;
  last_error_time: string | null;
  last_success: string | null;
  /** Entries never delivered: pruned first, or skipped past the pending limit. */
  not_exported: ColumnType<number, number | undefined, number>;
}
