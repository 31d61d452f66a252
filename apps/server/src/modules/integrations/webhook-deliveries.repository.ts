import type { Kysely } from 'kysely';
import { insertUnlessDuplicate } from '../../db/portable.js';
import type { Database } from '../../db/types.js';

/** Delivery ids integrations have taken, so a repeated delivery starts nothing (on any node). */
export class WebhookDeliveriesRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /**
   * Records that the integration took the delivery; false when it already had. The insert is the
   * check (a duplicate of the primary key inserts nothing), so of two concurrent posts of one
   * delivery, on one node or two, exactly one gets true. Rows received before `expiredBefore` are
   * purged first, so an id older than the window counts as new.
   */
  async take(integrationId: number, deliveryId: string, received: string, expiredBefore: string): Promise<boolean> {
    await this.db.deleteFrom('webhook_delivery').where('received', '<', expiredBefore).execute();
    return insertUnlessDuplicate(this.db, 'webhook_delivery', { integration_id: integrationId, delivery_id: deliveryId, received });
  }

  /** Forgets a delivery whose handling failed, so the sender's retry of it is taken. */
  async release(integrationId: number, deliveryId: string): Promise<void> {
    await this.db
      .deleteFrom('webhook_delivery')
      .where('integration_id', '=', integrationId)
      .where('delivery_id', '=', deliveryId)
      .execute();
  }
}
