import { SqliteAdapter, type Kysely, type Selectable } from 'kysely';
import type { AuditChainTable, AuditEntryTable, Database } from '../../db/types.js';

export type AuditEntryRow = Selectable<AuditEntryTable>;
export type AuditChainRow = Selectable<AuditChainTable>;

/** What `page` filters on; times are ISO text, compared as such. */
export interface AuditFilter {
  from?: string;
  to?: string;
  actor?: string;
  projectId?: number;
  objectType?: string;
  action?: string;
  limit: number;
  offset: number;
}

/**
 * The only SQL about the audit trail. Append-only: entries are added under the chain row's lock
 * and removed only by retention pruning, which moves the chain's anchor with them. The lock is
 * `SELECT … FOR UPDATE` on the chain row (PostgreSQL, MySQL: several nodes on one database queue
 * there); SQLite takes its single writer's lock by updating that row first.
 */
export class AuditRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /** Appends the entry `build` makes from the chain's head (its id and hash), in one locked transaction. */
  async append(build: (head: { id: number; hash: string }) => AuditEntryTable): Promise<AuditEntryRow> {
    return this.db.transaction().execute(async (trx) => {
      const head = await this.lockChain(trx);
      const row = build({ id: head.head_id, hash: head.head_hash });
      await trx.insertInto('audit_entry').values(row).execute();
      await trx.updateTable('audit_chain').set({ head_id: row.id, head_hash: row.hash }).where('id', '=', 1).execute();
      return row;
    });
  }

  /** Entries matching the filter, newest first. */
  async page(f: AuditFilter): Promise<AuditEntryRow[]> {
    let q = this.db.selectFrom('audit_entry').selectAll();
    if (f.from) q = q.where('time', '>=', f.from);
    if (f.to) q = q.where('time', '<', f.to);
    if (f.actor) q = q.where('actor_login', '=', f.actor);
    if (f.projectId !== undefined) q = q.where('project_id', '=', f.projectId);
    if (f.objectType) q = q.where('object_type', '=', f.objectType);
    if (f.action) q = q.where('action', '=', f.action);
    return q.orderBy('id', 'desc').limit(f.limit).offset(f.offset).execute();
  }

  /** The chain row: head, anchor, next pruning. */
  chain(): Promise<AuditChainRow> {
    return this.db.selectFrom('audit_chain').selectAll().where('id', '=', 1).executeTakeFirstOrThrow();
  }

  /** Up to `limit` entries with ids above `afterId`, oldest first (for verification). */
  batch(afterId: number, limit: number): Promise<AuditEntryRow[]> {
    return this.db
      .selectFrom('audit_entry')
      .selectAll()
      .where('id', '>', afterId)
      .orderBy('id', 'asc')
      .limit(limit)
      .execute();
  }

  /**
   * When pruning is due (`prune_due` at or before `now`, checked under the lock so one node of
   * many does it): removes the entries older than `cutoff` and keeps the hash of the last one as
   * the anchor the remaining chain starts from; sets the next due time. Answers how many went and
   * the last pruned id, or null when pruning was not due.
   */
  async prune(now: string, cutoff: string, nextDue: string): Promise<{ count: number; throughId: number } | null> {
    return this.db.transaction().execute(async (trx) => {
      const chain = await this.lockChain(trx);
      if (chain.prune_due > now) return null;
      await trx.updateTable('audit_chain').set({ prune_due: nextDue }).where('id', '=', 1).execute();
      // Ids grow with time: the entries to go are a prefix of the chain, up to the newest old one.
      const last = await trx
        .selectFrom('audit_entry')
        .select(['id', 'hash'])
        .where('time', '<', cutoff)
        .orderBy('id', 'desc')
        .limit(1)
        .executeTakeFirst();
      if (!last) return { count: 0, throughId: chain.anchor_id };
      const gone = await trx.deleteFrom('audit_entry').where('id', '<=', last.id).executeTakeFirst();
      await trx
        .updateTable('audit_chain')
        .set({ anchor_id: last.id, anchor_hash: last.hash })
        .where('id', '=', 1)
        .execute();
      return { count: Number(gone.numDeletedRows), throughId: last.id };
    });
  }

  private async lockChain(trx: Kysely<Database>): Promise<AuditChainRow> {
    const base = trx.selectFrom('audit_chain').selectAll().where('id', '=', 1);
    if (trx.getExecutor().adapter instanceof SqliteAdapter) {
      await trx
        .updateTable('audit_chain')
        .set((eb) => ({ head_id: eb.ref('head_id') }))
        .where('id', '=', 1)
        .execute();
      return base.executeTakeFirstOrThrow();
    }
    return base.forUpdate().executeTakeFirstOrThrow();
  }
}
