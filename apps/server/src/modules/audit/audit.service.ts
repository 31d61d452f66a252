import type { AuditEntry, AuditQuery } from '@gantry/contracts';
import type { Clock } from '../../platform/clock.js';
import { ForbiddenError } from '../../platform/errors.js';
import { currentCaller } from './audit-context.js';
import type { AuditRecord, AuditRecorder } from './audit.port.js';
import { fieldDiff } from './audit-fields.js';
import { entryHash, GENESIS_HASH } from './audit-hash.js';
import { presentAuditEntry } from './audit.presenter.js';
import type { AuditEntryRow, AuditRepository } from './audit.repository.js';

export type { AuditRecord, AuditRecorder };

/** What `gantry audit verify` finds. */
export type AuditVerification =
  { ok: true; count: number } | { ok: false; count: number; badId: number; reason: string };

/** Who reads the trail: admins everything, a project's owners that project's entries. */
export interface AuditViewer {
  id: number;
  admin: boolean;
}

const DAY_MS = 24 * 3600_000;
const VERIFY_BATCH = 1000;

/**
 * The audit trail: entries are appended hash-chained (each stores its predecessor's hash, the
 * first after a pruning the pruned one's), read with filters, verified end to end and pruned
 * after the retention period.
 */
export class AuditService implements AuditRecorder {
  constructor(
    private readonly repo: AuditRepository,
    private readonly clock: Clock,
    private readonly roleIn: (projectId: number, userId: number) => Promise<string | null>,
  ) {}

  async record(r: AuditRecord): Promise<void> {
    const caller = { ...currentCaller(), ...r.caller };
    const { before, after } = fieldDiff(r.before ?? null, r.after ?? null, r.secretsChanged);
    // An update that changed nothing recorded is no entry.
    if (r.action === 'update' && before && after && Object.keys(after).length === 0) return;
    const time = this.clock.now().toISOString();
    await this.repo.append((head) => {
      const row = {
        id: head.id + 1,
        time,
        actor_id: caller.actorId,
        actor_login: caller.actorLogin,
        auth_kind: caller.authKind,
        ip: caller.ip,
        user_agent: caller.userAgent,
        request_id: caller.requestId,
        project_id: r.projectId ?? null,
        object_type: r.objectType,
        object_id: r.objectId === undefined || r.objectId === null ? null : String(r.objectId),
        action: r.action,
        before: before ? JSON.stringify(before) : null,
        after: after ? JSON.stringify(after) : null,
        prev_hash: head.hash,
      };
      return { ...row, hash: entryHash(row) };
    });
  }

  /** Newest first. Admins read everything; a project's owner only that project (`project_id`); others nothing. */
  async list(viewer: AuditViewer, q: AuditQuery): Promise<AuditEntry[]> {
    if (!viewer.admin) {
      if (q.project_id === undefined || (await this.roleIn(q.project_id, viewer.id)) !== 'owner')
        throw new ForbiddenError();
    }
    const rows = await this.repo.page({
      from: q.from,
      to: q.to,
      actor: q.actor,
      projectId: q.project_id,
      objectType: q.object_type,
      action: q.action,
      limit: q.limit,
      offset: q.offset,
    });
    return rows.map(presentAuditEntry);
  }

  /**
   * Walks the chain from its anchor: each entry must follow the previous id, name the previous
   * hash and hash to what it stores; the last must be the chain's recorded head. The first entry
   * that fails is the one named (a changed row, the one after a removed row, an inserted row).
   */
  async verify(): Promise<AuditVerification> {
    const chain = await this.repo.chain();
    let prev = { id: chain.anchor_id, hash: chain.anchor_hash || GENESIS_HASH };
    let count = 0;
    for (;;) {
      const rows = await this.repo.batch(prev.id === chain.anchor_id ? -1 : prev.id, VERIFY_BATCH);
      for (const row of rows) {
        const bad = this.check(row, prev, chain.anchor_id);
        if (bad) return { ok: false, count, badId: row.id, reason: bad };
        prev = { id: row.id, hash: row.hash };
        count += 1;
      }
      if (rows.length < VERIFY_BATCH) break;
    }
    if (prev.id !== chain.head_id || prev.hash !== chain.head_hash) {
      return {
        ok: false,
        count,
        badId: chain.head_id,
        reason: `the chain ends at entry ${prev.id}, but its head is entry ${chain.head_id}: entries were removed from its end`,
      };
    }
    return { ok: true, count };
  }

  /**
   * Removes entries older than `retentionDays` (0: keep forever) once a day across all nodes
   * (the due time is kept in the database); the removal itself is an entry.
   */
  async pruneIfDue(retentionDays: number): Promise<number> {
    if (retentionDays <= 0) return 0;
    const now = this.clock.now();
    const cutoff = new Date(now.getTime() - retentionDays * DAY_MS).toISOString();
    const done = await this.repo.prune(now.toISOString(), cutoff, new Date(now.getTime() + DAY_MS).toISOString());
    if (!done || done.count === 0) return 0;
    await this.record({
      action: 'prune',
      objectType: 'audit',
      after: { pruned: done.count, through_id: done.throughId, retention_days: retentionDays },
      caller: { authKind: 'system', actorId: null, actorLogin: null },
    });
    return done.count;
  }

  private check(row: AuditEntryRow, prev: { id: number; hash: string }, anchorId: number): string | null {
    // The first entry after the anchor may follow a gap only where pruning left one (never below the anchor).
    if (row.id <= prev.id) return `entry ${row.id} is out of order`;
    if (prev.id !== anchorId && row.id !== prev.id + 1)
      return `entry ${row.id} follows entry ${prev.id}: entries between them were removed`;
    if (prev.id === anchorId && anchorId !== 0 && row.id !== anchorId + 1)
      return `entry ${row.id} does not follow the pruned entry ${anchorId}`;
    if (row.prev_hash !== prev.hash) return `entry ${row.id} does not name the hash of entry ${prev.id} before it`;
    const { hash, ...rest } = row;
    if (entryHash(rest) !== hash) return `entry ${row.id} was changed after it was written`;
    return null;
  }
}
