import type { Kysely, Selectable } from 'kysely';
import type { AuditExportCursorTable, Database } from '../../db/types.js';

export type ExportCursorRow = Selectable<AuditExportCursorTable>;

/**
 * The only SQL about export cursors. Every write that moves a cursor names the lease holder and
 * the cursor it read, so a node that lost its lease (a long pause, a partition) moves nothing.
 */
export class AuditExportRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /** The destination's row, made with its cursor at `startId` when it has none yet (a new destination). */
  async ensure(destination: string, target: string, startId: number): Promise<ExportCursorRow> {
    const found = await this.get(destination);
    if (found) {
      if (found.target !== target)
        await this.db
          .updateTable('audit_export_cursor')
          .set({ target })
          .where('destination', '=', destination)
          .execute();
      return { ...found, target };
    }
    try {
      await this.db.insertInto('audit_export_cursor').values({ destination, target, last_id: startId }).execute();
    } catch (e) {
      // Another node made it at the same moment: theirs stands. Any other failure is reported.
      const made = await this.get(destination);
      if (made) return made;
      throw e;
    }
    return (await this.get(destination))!;
  }

  get(destination: string): Promise<ExportCursorRow | undefined> {
    return this.db
      .selectFrom('audit_export_cursor')
      .selectAll()
      .where('destination', '=', destination)
      .executeTakeFirst();
  }

  list(destinations: readonly string[]): Promise<ExportCursorRow[]> {
    if (destinations.length === 0) return Promise.resolve([]);
    return this.db.selectFrom('audit_export_cursor').selectAll().where('destination', 'in', destinations).execute();
  }

  /**
   * Takes or renews the lease until `until` when it is free, expired (before `now`) or this
   * node's already; answers the row when this node holds it afterwards.
   */
  async claim(destination: string, node: string, now: string, until: string): Promise<ExportCursorRow | null> {
    await this.db
      .updateTable('audit_export_cursor')
      .set({ lease_holder: node, lease_expires: until })
      .where('destination', '=', destination)
      .where((eb) =>
        eb.or([eb('lease_holder', 'is', null), eb('lease_holder', '=', node), eb('lease_expires', '<', now)]),
      )
      .execute();
    // Read back rather than count the updated rows: MySQL counts a renewal that changed nothing as none.
    const row = await this.get(destination);
    return row?.lease_holder === node ? row : null;
  }

  /** Moves the cursor from `fromId` to `toId` after a delivery; false when this node no longer holds it there. */
  async delivered(destination: string, node: string, fromId: number, toId: number, now: string): Promise<boolean> {
    const r = await this.db
      .updateTable('audit_export_cursor')
      .set({ last_id: toId, attempts: 0, last_success: now })
      .where('destination', '=', destination)
      .where('lease_holder', '=', node)
      .where('last_id', '=', fromId)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  /** Moves the cursor past `count` entries that will never be delivered; false when this node no longer holds it there. */
  async skipped(destination: string, node: string, fromId: number, toId: number, count: number): Promise<boolean> {
    const r = await this.db
      .updateTable('audit_export_cursor')
      .set((eb) => ({ last_id: toId, not_exported: eb('not_exported', '+', count) }))
      .where('destination', '=', destination)
      .where('lease_holder', '=', node)
      .where('last_id', '=', fromId)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  /** Records a failed delivery; answers the failures in a row now (the backoff grows with them). */
  async failed(destination: string, node: string, error: string, now: string): Promise<number> {
    await this.db
      .updateTable('audit_export_cursor')
      .set((eb) => ({ attempts: eb('attempts', '+', 1), last_error: error, last_error_time: now }))
      .where('destination', '=', destination)
      .where('lease_holder', '=', node)
      .execute();
    return Number((await this.get(destination))?.attempts ?? 1);
  }

  /** Gives the lease up (a stopping node): another node takes the destination over at once. */
  async release(destination: string, node: string): Promise<void> {
    await this.db
      .updateTable('audit_export_cursor')
      .set({ lease_holder: null, lease_expires: null })
      .where('destination', '=', destination)
      .where('lease_holder', '=', node)
      .execute();
  }
}
