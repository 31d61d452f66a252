import type { Kysely } from 'kysely';
import { insertUnlessDuplicate } from '../../db/portable.js';
import type { Database } from '../../db/types.js';

/** What a delivery is recognised by when it comes again (see webhook-replay.ts). */
export interface DeliveryKeys {
  /** The sender's delivery id (GitHub, Bitbucket), when it sent one. */
  deliveryId: string | null;
  /** The SHA-256 of its content (bodyHashOf), for methods deduplicated by content. */
  bodyHash: string | null;
}

/** Deliveries integrations have taken, so a repeated delivery starts nothing (on any node). */
export class WebhookDeliveriesRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /**
   * Records that the integration took the delivery; false when it already had one with the same
   * body hash or the same delivery id, and then nothing is recorded. Each insert is its own check
   * (a duplicate of the primary key inserts nothing), so of two concurrent posts of one delivery,
   * on one node or two, exactly one gets true. Rows received before `expiredBefore` are purged
   * first, so a delivery older than the window counts as new.
   */
  async take(integrationId: number, keys: DeliveryKeys, received: string, expiredBefore: string): Promise<boolean> {
    await this.db.deleteFrom('webhook_delivery').where('received', '<', expiredBefore).execute();
    await this.db.deleteFrom('webhook_delivery_body').where('received', '<', expiredBefore).execute();
    const { deliveryId, bodyHash } = keys;
    if (bodyHash !== null) {
      const row = { integration_id: integrationId, body_sha256: bodyHash, received };
      if (!(await insertUnlessDuplicate(this.db, 'webhook_delivery_body', row))) return false;
    }
    if (deliveryId === null) return true;
    const row = { integration_id: integrationId, delivery_id: deliveryId, received };
    if (await insertUnlessDuplicate(this.db, 'webhook_delivery', row)) return true;
    // A known id with a body not seen yet: refused, and the body is not remembered either.
    if (bodyHash !== null) await this.forgetBody(integrationId, bodyHash);
    return false;
  }

  /** Forgets a delivery whose handling failed, so the sender's retry of it is taken. */
  async release(integrationId: number, keys: DeliveryKeys): Promise<void> {
    if (keys.deliveryId !== null) {
      await this.db
        .deleteFrom('webhook_delivery')
        .where('integration_id', '=', integrationId)
        .where('delivery_id', '=', keys.deliveryId)
        .execute();
    }
    if (keys.bodyHash !== null) await this.forgetBody(integrationId, keys.bodyHash);
  }

  private async forgetBody(integrationId: number, bodyHash: string): Promise<void> {
    await this.db
      .deleteFrom('webhook_delivery_body')
      .where('integration_id', '=', integrationId)
      .where('body_sha256', '=', bodyHash)
      .execute();
  }
}
