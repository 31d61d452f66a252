import type { AuditEntry } from '@gantry/contracts';
import type { AuditEntryRow } from './audit.repository.js';

const fields = (text: string | null): Record<string, unknown> | null =>
  text === null ? null : (JSON.parse(text) as Record<string, unknown>);

/** The API shape of an entry: numeric object ids as numbers, the changed fields parsed. */
export function presentAuditEntry(r: AuditEntryRow): AuditEntry {
  return {
    id: Number(r.id),
    time: r.time,
    actor: r.actor_login,
    actor_id: r.actor_id,
    action: r.action,
    object_type: r.object_type,
    object_id: r.object_id !== null && /^\d{1,15}$/.test(r.object_id) ? Number(r.object_id) : r.object_id,
    project_id: r.project_id,
    before: fields(r.before),
    after: fields(r.after),
    auth_kind: r.auth_kind,
    ip: r.ip,
    user_agent: r.user_agent,
    request_id: r.request_id,
  };
}
