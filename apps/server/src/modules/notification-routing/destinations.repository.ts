import type { Kysely, Selectable } from 'kysely';
import { insertReturningAll } from '../../db/portable.js';
import type { NotificationDestinationTable } from '../../db/tables/notification-routing.js';
import type { Database } from '../../db/types.js';

export type DestinationRow = Selectable<NotificationDestinationTable>;

/** What a destination is saved with (config as JSON, secrets sealed). */
export interface DestinationValues {
  name: string;
  kind: string;
  config: string;
  secrets: string;
  active: number;
}

/** The SQL of notification destinations; every lookup is scoped by project (null: global). */
export class DestinationsRepository {
  constructor(private readonly db: Kysely<Database>) {}

  list(projectId: number | null): Promise<DestinationRow[]> {
    return this.db
      .selectFrom('notification_destination')
      .selectAll()
      .where((eb) => (projectId === null ? eb('project_id', 'is', null) : eb('project_id', '=', projectId)))
      .orderBy('name')
      .orderBy('id')
      .execute();
  }

  find(projectId: number | null, id: number): Promise<DestinationRow | undefined> {
    return this.db
      .selectFrom('notification_destination')
      .selectAll()
      .where('id', '=', id)
      .where((eb) => (projectId === null ? eb('project_id', 'is', null) : eb('project_id', '=', projectId)))
      .executeTakeFirst();
  }

  /** Any scope: the delivery worker opens the destination a queued row names. */
  findAny(id: number): Promise<DestinationRow | undefined> {
    return this.db.selectFrom('notification_destination').selectAll().where('id', '=', id).executeTakeFirst();
  }

  insert(projectId: number | null, v: DestinationValues, now: string): Promise<DestinationRow> {
    return insertReturningAll(this.db, 'notification_destination', { ...v, project_id: projectId, created: now });
  }

  async update(projectId: number | null, id: number, v: DestinationValues): Promise<void> {
    await this.db
      .updateTable('notification_destination')
      .set(v)
      .where('id', '=', id)
      .where((eb) => (projectId === null ? eb('project_id', 'is', null) : eb('project_id', '=', projectId)))
      .execute();
  }

  /**
   * Its rules and deliveries go with it. The foreign keys cascade, but rows are removed here too so
   * the outcome does not hang on each engine's foreign key enforcement (SQLite needs a pragma).
   */
  async delete(projectId: number | null, id: number): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('notification_delivery').where('destination_id', '=', id).execute();
      await trx.deleteFrom('notification_rule').where('destination_id', '=', id).execute();
      await trx
        .deleteFrom('notification_destination')
        .where('id', '=', id)
        .where((eb) => (projectId === null ? eb('project_id', 'is', null) : eb('project_id', '=', projectId)))
        .execute();
    });
  }
}
