import {
  DESTINATION_FIELDS,
  NOTIFICATION_DELIVERY_STATUSES,
  NOTIFICATION_EVENTS,
  type NotificationDelivery,
  type NotificationDestination,
  type NotificationEventName,
  type NotificationKind,
  type NotificationRule,
} from '@gantry/contracts';
import type { Selectable } from 'kysely';
import type { NotificationDeliveryTable } from '../../db/tables/notification-routing.js';
import { destinationTarget } from './destination-config.js';
import type { DestinationRow } from './destinations.repository.js';
import type { RuleRow } from './rules.repository.js';

/** The latest delivery attempt of a destination (DeliveriesRepository.lastByDestination). */
export type LastDelivery = { time: string; status: string; error: string | null };

/**
 * A destination as the API answers it: its public fields, which secrets are set (never their
 * value) and its target without any key. `secrets` are the opened ones, used only to tell.
 */
export function presentDestination(
  row: DestinationRow,
  secrets: Record<string, string>,
  last: LastDelivery | null,
): NotificationDestination {
  const kind = row.kind as NotificationKind;
  const config = parseObject(row.config) as NotificationDestination['config'];
  const set: Record<string, boolean> = {};
  for (const f of DESTINATION_FIELDS[kind] ?? []) if (f.secret) set[f.name] = Boolean(secrets[f.name]);
  return {
    id: row.id,
    project_id: row.project_id,
    name: row.name,
    kind,
    config,
    secrets: set,
    target: destinationTarget(kind, config, secrets),
    active: row.active === 1,
    created: row.created,
    last_delivery: last,
  };
}

export function presentRule(row: RuleRow): NotificationRule {
  return {
    id: row.id,
    project_id: row.project_id,
    destination_id: row.destination_id,
    events: ruleEvents(row),
    template_id: row.template_id,
    schedule_id: row.schedule_id,
    only_schedules: row.only_schedules === 1,
    branch: row.branch,
    exclude_task_runners: row.exclude_task_runners === 1,
    long_running_minutes: row.long_running_minutes,
    digest_hour: row.digest_hour,
    created: row.created,
  };
}

/** A rule's events; anything unknown in the stored list is left out. */
export function ruleEvents(row: Pick<RuleRow, 'events'>): NotificationEventName[] {
  const list = parseArray(row.events);
  return list.filter((e): e is NotificationEventName => (NOTIFICATION_EVENTS as readonly unknown[]).includes(e));
}

export function parseObject(text: string): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(text);
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

function parseArray(text: string): unknown[] {
  try {
    const v: unknown = JSON.parse(text);
    return Array.isArray(v) ? v : [];
  } catch {
    return [];
  }
}

/** One delivery of the log as the API answers it (the payload stays on the server). */
export function presentDelivery(row: Selectable<NotificationDeliveryTable>): NotificationDelivery {
  return {
    id: row.id,
    destination_id: row.destination_id,
    event: row.event,
    subject: row.subject,
    task_id: row.task_id,
    template_id: row.template_id,
    status: (NOTIFICATION_DELIVERY_STATUSES as readonly string[]).includes(row.status)
      ? (row.status as NotificationDelivery['status'])
      : 'pending',
    attempts: row.attempts,
    http_status: row.http_status,
    error: row.error,
    created: row.created,
    last_attempt: row.last_attempt,
    next_attempt: row.next_attempt,
    delivered: row.delivered,
  };
}
