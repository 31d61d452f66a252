import type { Kysely, Selectable } from 'kysely';
import type { NotificationDeliveryTable } from '../../../db/tables/notification-routing.js';
import { insertUnlessDuplicate } from '../../../db/portable.js';
import type { Database } from '../../../db/types.js';
import type { DeliveryToEnqueue } from '../notification-payload.js';

export type DeliveryRow = Selectable<NotificationDeliveryTable>;

/** A destination's latest attempt, for its list entry. */
export interface DeliverySummary {
  time: string;
  status: string;
  error: string | null;
}

/** Sent and failed rows are kept this long: the log stays bounded. */
export const DELIVERY_KEEP_DAYS = 30;

/**
 * The delivery queue and log (`notification_delivery`). Rows are inserted once per dedup key and
 * advanced by whichever node claims them first: a claim is one conditional UPDATE, so two nodes
 * never both send a row.
 */
export class DeliveriesRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /**
   * Inserts each row unless its dedup key is already queued (an event seen twice, by two nodes or
   * two sweeps); answers how many were new. Each insert stands alone (no transaction): a duplicate
   * never aborts the others.
   */
  async enqueue(rows: readonly DeliveryToEnqueue[], now: string): Promise<number> {
    let added = 0;
    for (const r of rows) {
      const inserted = await insertUnlessDuplicate(this.db, 'notification_delivery', {
        destination_id: r.destinationId,
        project_id: r.projectId,
        dedup_key: r.dedupKey,
        event: r.event,
        subject: r.subject.slice(0, 255),
        task_id: r.taskId,
        template_id: r.templateId,
        payload: JSON.stringify(r.payload),
        status: 'pending',
        attempts: 0,
        created: now,
        next_attempt: now,
      });
      if (inserted) added += 1;
    }
    return added;
  }

  /** A destination's deliveries, newest first; `beforeId` pages on. */
  async list(destinationId: number, limit = 50, beforeId?: number): Promise<DeliveryRow[]> {
    let q = this.db.selectFrom('notification_delivery').selectAll().where('destination_id', '=', destinationId);
    if (beforeId !== undefined) q = q.where('id', '<', beforeId);
    return q.orderBy('id', 'desc').limit(limit).execute();
  }

  /** Each destination's latest delivery (by id), keyed by destination id. */
  async lastByDestination(ids: readonly number[]): Promise<Map<number, DeliverySummary>> {
    const out = new Map<number, DeliverySummary>();
    if (ids.length === 0) return out;
    const rows = await this.db
      .selectFrom('notification_delivery')
      .select(['destination_id', 'status', 'error', 'created', 'last_attempt'])
      .where('id', 'in', (eb) =>
        eb
          .selectFrom('notification_delivery')
          .select((e) => e.fn.max('id').as('id'))
          .where('destination_id', 'in', [...ids])
          .groupBy('destination_id'),
      )
      .execute();
    for (const r of rows) {
      const summary: DeliverySummary = { time: r.last_attempt ?? r.created, status: r.status, error: r.error };
      out.set(r.destination_id, summary);
    }
    return out;
  }

  /** Ids of rows due at `now` and not held by a live claim, oldest due first. */
  async dueIds(now: string, limit: number): Promise<number[]> {
    const rows = await this.db
      .selectFrom('notification_delivery')
      .select('id')
      .where('status', '=', 'pending')
      .where('next_attempt', '<=', now)
      .where((eb) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<', now)]))
      .orderBy('next_attempt')
      .orderBy('id')
      .limit(limit)
      .execute();
    return rows.map((r) => r.id);
  }

  /**
   * Takes a due row for `nodeId` until `until`, counting the attempt; answers it, or null when it
   * is no longer due or another node holds it. The UPDATE's condition is the lock.
   */
  async claim(id: number, nodeId: string, now: string, until: string): Promise<DeliveryRow | null> {
    const r = await this.db
      .updateTable('notification_delivery')
      .set((eb) => ({ claimed_by: nodeId, claimed_until: until, attempts: eb('attempts', '+', 1), last_attempt: now }))
      .where('id', '=', id)
      .where('status', '=', 'pending')
      .where('next_attempt', '<=', now)
      .where((eb) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<', now)]))
      .executeTakeFirst();
    if (Number(r.numUpdatedRows) !== 1) return null;
    const row = await this.db.selectFrom('notification_delivery').selectAll().where('id', '=', id).executeTakeFirst();
    // Claimed by this node: nobody else writes it before the claim runs out.
    return row && row.claimed_by === nodeId ? row : null;
  }

  /** The claimed row was delivered. */
  async markSent(id: number, nodeId: string, now: string, httpStatus: number | null): Promise<void> {
    await this.finish(id, nodeId, {
      status: 'sent',
      delivered: now,
      http_status: httpStatus,
      error: null,
      next_attempt: null,
    });
  }

  /** The attempt failed; the row waits for `nextAttempt`. */
  async markRetry(
    id: number,
    nodeId: string,
    nextAttempt: string,
    httpStatus: number | null,
    error: string,
  ): Promise<void> {
    await this.finish(id, nodeId, { http_status: httpStatus, error, next_attempt: nextAttempt });
  }

  /** Given up: the error is kept for the log. */
  async markFailed(id: number, nodeId: string, httpStatus: number | null, error: string): Promise<void> {
    await this.finish(id, nodeId, { status: 'failed', http_status: httpStatus, error, next_attempt: null });
  }

  /** Deletes sent and failed rows created before `olderThan`; answers how many. */
  async prune(olderThan: string): Promise<number> {
    const r = await this.db
      .deleteFrom('notification_delivery')
      .where('status', 'in', ['sent', 'failed'])
      .where('created', '<', olderThan)
      .executeTakeFirst();
    return Number(r.numDeletedRows);
  }

  /** Only the claim's holder writes the outcome (a node whose claim ran out must not overwrite). */
  private async finish(
    id: number,
    nodeId: string,
    values: Partial<Pick<DeliveryRow, 'status' | 'delivered' | 'http_status' | 'error' | 'next_attempt'>>,
  ): Promise<void> {
    await this.db
      .updateTable('notification_delivery')
      .set({ ...values, claimed_by: null, claimed_until: null })
      .where('id', '=', id)
      .where('claimed_by', '=', nodeId)
      .execute();
  }
}
