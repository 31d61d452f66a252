import type { AuditAction, AuditAuthKind } from '@gantry/contracts';

/** One audit entry as services give it; the caller (actor, address, ...) comes from the request context. */
export interface AuditRecord {
  action: AuditAction;
  objectType: string;
  objectId?: number | string | null;
  projectId?: number | null;
  /** The object before the change (a presenter's output: no secrets), null for a create. */
  before?: Record<string, unknown> | null;
  /** The object after the change, null for a delete. */
  after?: Record<string, unknown> | null;
  /** Secret fields the change set that no presented value shows: recorded as "changed". */
  secretsChanged?: readonly string[];
  /** Overrides of the request's caller, e.g. the user who signs in (no user is resolved yet). */
  caller?: { actorId?: number | null; actorLogin?: string | null; authKind?: AuditAuthKind };
}

/** The port services record audit entries through (the audit module implements it). */
export interface AuditRecorder {
  record(r: AuditRecord): Promise<void>;
}

/** Records nothing: the default until the composition root wires the audit trail in. */
export const noAudit: AuditRecorder = { record: async () => undefined };
