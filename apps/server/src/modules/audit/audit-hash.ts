import { createHash } from 'node:crypto';
import type { AuditEntryTable } from '../../db/types.js';

/** The chain's start: the `prev_hash` of the first entry ever written. */
export const GENESIS_HASH = '0'.repeat(64);

/**
 * SHA-256 (hex) over the entry's canonical serialisation: a JSON array of every column but the
 * hash, in a fixed order, so the same row always gives the same text on every engine.
 */
export function entryHash(e: Omit<AuditEntryTable, 'hash'>): string {
  const canonical = JSON.stringify([
    e.id,
    e.time,
    e.actor_id,
    e.actor_login,
    e.auth_kind,
    e.ip,
    e.user_agent,
    e.request_id,
    e.project_id,
    e.object_type,
    e.object_id,
    e.action,
    e.before,
    e.after,
    e.prev_hash,
  ]);
  return createHash('sha256').update(canonical, 'utf8').digest('hex');
}
