import type { Config } from '../config/config.js';
import type { Db } from '../db/db.js';
import type { AuditService } from '../modules/audit/audit.service.js';
import type { EventsService } from '../modules/events/events.service.js';
import {
  createNotificationRouting,
  type NotificationRouting,
} from '../modules/notification-routing/create-notification-routing.js';
import { channelSecrets, createChannels } from '../modules/notifications/channels/channels.js';
import { NotificationsRepository } from '../modules/notifications/notifications.repository.js';
import { NotificationsService } from '../modules/notifications/notifications.service.js';
import type { TasksService } from '../modules/tasks/tasks.service.js';
import type { Clock } from '../platform/clock.js';
import type { SecretBox } from '../platform/crypto.js';

export interface NotificationsDeps {
  config: Config;
  db: Db;
  events: EventsService;
  tasks: TasksService;
}

/** The instance channels (GANTRY_NOTIFY_*); a task that ends outside a run is told there too. */
export function createNotifications({ config, db, events, tasks }: NotificationsDeps): NotificationsService {
  const notifications = new NotificationsService(
    new NotificationsRepository(db.db),
    createChannels(config.notifications),
    events,
    config.webHost,
    channelSecrets(config.notifications),
  );
  tasks.endedOutsideRun = (t) => notifications.dispatch(t);
  return notifications;
}

export interface NotificationRoutingWiringDeps {
  config: Config;
  db: Db;
  box: SecretBox;
  clock: Clock;
  events: EventsService;
  node: string;
  notifications: NotificationsService;
  audit: AuditService;
  /** Test hook: how often the sweeps look at the database (default 5 s). */
  notificationSweepMs: number | undefined;
}

/** Creates the routing (destinations, rules, router, sweeps, delivery worker) and makes the instance channels feed it. */
export function wireNotificationRouting({
  config,
  db,
  box,
  clock,
  events,
  node,
  notifications,
  audit,
  notificationSweepMs,
}: NotificationRoutingWiringDeps): NotificationRouting {
  // Notification routing: every task event, drift finding and approval the instance channels hear reaches it too.
  const notificationRouting = createNotificationRouting({
    db: db.db,
    box,
    clock,
    events,
    nodeId: node,
    webHost: config.webHost,
    allowedHosts: config.fetchAllowedHosts,
    email: config.notifications.email,
    runnerTimeoutMs: config.runnerTimeoutSeconds * 1000,
    planOf: (taskId) => notifications.planOf(taskId),
    sweepIntervalMs: notificationSweepMs,
    log: (line) => void (config.logLevel !== 'silent' && process.stderr.write(`${line}\n`)),
  });
  notifications.onEvent = notificationRouting.onEvent;
  notificationRouting.destinations.audit = audit;
  notificationRouting.rules.audit = audit;
  return notificationRouting;
}
