import type { Kysely, Selectable } from 'kysely';
import { insertReturningAll } from '../../db/portable.js';
import type { NotificationRuleTable } from '../../db/tables/notification-routing.js';
import type { Database } from '../../db/types.js';

export type RuleRow = Selectable<NotificationRuleTable>;

export type RuleValues = Omit<RuleRow, 'id' | 'project_id' | 'created'>;

/** A rule with its destination's project and whether the destination is on (what the router needs). */
export type RoutedRuleRow = RuleRow & { destination_active: number };

/** The SQL of notification rules; every lookup is scoped by project (null: global). */
export class RulesRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /** A project's rules (or the global ones); with `templateId`, those that apply to that template. */
  list(projectId: number | null, templateId?: number): Promise<RuleRow[]> {
    return this.db
      .selectFrom('notification_rule')
      .selectAll()
      .where((eb) => (projectId === null ? eb('project_id', 'is', null) : eb('project_id', '=', projectId)))
      .$if(templateId !== undefined, (q) =>
        q.where((eb) =>
          eb.or([
            eb.and([eb('template_id', 'is', null), eb('schedule_id', 'is', null)]),
            eb('template_id', '=', templateId!),
          ]),
        ),
      )
      .orderBy('id')
      .execute();
  }

  find(projectId: number | null, id: number): Promise<RuleRow | undefined> {
    return this.db
      .selectFrom('notification_rule')
      .selectAll()
      .where('id', '=', id)
      .where((eb) => (projectId === null ? eb('project_id', 'is', null) : eb('project_id', '=', projectId)))
      .executeTakeFirst();
  }

  insert(projectId: number | null, v: RuleValues, now: string): Promise<RuleRow> {
    return insertReturningAll(this.db, 'notification_rule', { ...v, project_id: projectId, created: now });
  }

  async update(projectId: number | null, id: number, v: RuleValues): Promise<void> {
    await this.db
      .updateTable('notification_rule')
      .set(v)
      .where('id', '=', id)
      .where((eb) => (projectId === null ? eb('project_id', 'is', null) : eb('project_id', '=', projectId)))
      .execute();
  }

  async delete(projectId: number | null, id: number): Promise<void> {
    await this.db
      .deleteFrom('notification_rule')
      .where('id', '=', id)
      .where((eb) => (projectId === null ? eb('project_id', 'is', null) : eb('project_id', '=', projectId)))
      .execute();
  }

  /** The rules an event of this project may match: the project's and the global ones, of active destinations. */
  routed(projectId: number | null): Promise<RoutedRuleRow[]> {
    return this.db
      .selectFrom('notification_rule')
      .innerJoin('notification_destination', 'notification_destination.id', 'notification_rule.destination_id')
      .selectAll('notification_rule')
      .select('notification_destination.active as destination_active')
      .where((eb) =>
        projectId === null
          ? eb('notification_rule.project_id', 'is', null)
          : eb.or([eb('notification_rule.project_id', '=', projectId), eb('notification_rule.project_id', 'is', null)]),
      )
      .orderBy('notification_rule.id')
      .execute();
  }

  /** Every rule naming an event (a substring test on the JSON list; the router checks exactly). */
  withEvent(event: string): Promise<RuleRow[]> {
    return this.db
      .selectFrom('notification_rule')
      .selectAll()
      .where('events', 'like', `%"${event}"%`)
      .orderBy('id')
      .execute();
  }

  /** The project's template with this id, if any. */
  template(projectId: number, id: number) {
    return this.db
      .selectFrom('template')
      .select(['id'])
      .where('project_id', '=', projectId)
      .where('id', '=', id)
      .executeTakeFirst();
  }

  /** The project's schedule with this id and its template, if any. */
  schedule(projectId: number, id: number) {
    return this.db
      .selectFrom('schedule')
      .select(['id', 'template_id'])
      .where('project_id', '=', projectId)
      .where('id', '=', id)
      .executeTakeFirst();
  }
}
