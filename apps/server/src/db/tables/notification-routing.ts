import type { Generated } from 'kysely';

/** Where notifications go (migration 038); `project_id` null: global (admins). */
export interface NotificationDestinationTable {
  id: Generated<number>;
  project_id: number | null;
  name: string;
  kind: string;
  /** JSON object of the non-secret fields. */
  config: string;
  /** SecretBox-sealed JSON object of the secret fields ('' when there are none). */
  secrets: string;
  active: number;
  created: string;
}

/** Which events go to a destination (migration 038). */
export interface NotificationRuleTable {
  id: Generated<number>;
  project_id: number | null;
  destination_id: number;
  /** JSON list of NotificationEventName. */
  events: string;
  template_id: number | null;
  schedule_id: number | null;
  only_schedules: number;
  branch: string | null;
  exclude_task_runners: number;
  long_running_minutes: number | null;
  digest_hour: number | null;
  created: string;
}

/** One event for one destination: the queue and the delivery log (migration 038). */
export interface NotificationDeliveryTable {
  id: Generated<number>;
  destination_id: number;
  project_id: number | null;
  /** Unique: `<event>:<what>:<destination>`; the same event is enqueued once. */
  dedup_key: string;
  event: string;
  subject: string;
  task_id: number | null;
  template_id: number | null;
  /** JSON NotificationPayload (no secret in it). */
  payload: string;
  /** pending | sent | failed */
  status: string;
  attempts: number;
  http_status: number | null;
  error: string | null;
  created: string;
  last_attempt: string | null;
  next_attempt: string | null;
  delivered: string | null;
  claimed_by: string | null;
  claimed_until: string | null;
}
