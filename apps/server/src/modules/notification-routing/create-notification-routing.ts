import type { Kysely } from 'kysely';
import type { NotificationsConfig } from '../../config/config.js';
import type { Database } from '../../db/types.js';
import type { Clock } from '../../platform/clock.js';
import type { SecretBox } from '../../platform/crypto.js';
import type { EventsService } from '../events/events.service.js';
import type { RoutableEvent } from '../notifications/notifications.service.js';
import type { PlanSummary } from '@gantry/contracts';
import { DeliveriesRepository } from './delivery/deliveries.repository.js';
import { DeliveryWorker } from './delivery/delivery-worker.js';
import { sendTest } from './delivery/send-test.js';
import type { SenderContext } from './delivery/senders/index.js';
import { DestinationsRepository } from './destinations.repository.js';
import { DestinationsService } from './destinations.service.js';
import { presentDelivery } from './notification-routing.presenter.js';
import { NotificationRouter, type RoutingEvent } from './router.js';
import { RoutingRepository } from './routing.repository.js';
import { RulesRepository } from './rules.repository.js';
import { RulesService } from './rules.service.js';
import { RoutingSweeps } from './sweeps.js';

export interface NotificationRoutingDeps {
  db: Kysely<Database>;
  box: Pick<SecretBox, 'seal' | 'open'>;
  clock: Clock;
  events: Pick<EventsService, 'record'>;
  nodeId: string;
  webHost: string;
  /** GANTRY_FETCH_ALLOWED_HOSTS: private addresses a destination may reach. */
  allowedHosts: readonly string[];
  email?: NotificationsConfig['email'];
  /** A runner silent this long shows as offline (GANTRY_RUNNER_TIMEOUT_SECONDS). */
  runnerTimeoutMs: number;
  planOf(taskId: number): Promise<PlanSummary | null>;
  sweepIntervalMs?: number;
  workerPollMs?: number;
  log?: (line: string) => void;
}

/** Notification routing, wired: destinations, rules, the router, the sweeps and this node's delivery worker. */
export function createNotificationRouting(d: NotificationRoutingDeps) {
  const deliveriesRepo = new DeliveriesRepository(d.db);
  const routingRepo = new RoutingRepository(d.db);
  const rulesRepo = new RulesRepository(d.db);
  const ctx: SenderContext = {
    allowedHosts: d.allowedHosts,
    emailDefaults: d.email,
    now: () => d.clock.now(),
  };
  const destinations = new DestinationsService({
    repo: new DestinationsRepository(d.db),
    box: d.box,
    clock: d.clock,
    events: d.events,
    lastDeliveries: (ids) => deliveriesRepo.lastByDestination(ids),
    sendTest: (dest, project) => sendTest(dest, ctx, project),
    projectName: (id) => routingRepo.projectName(id),
    deliveries: async (id, limit, beforeId) => (await deliveriesRepo.list(id, limit, beforeId)).map(presentDelivery),
  });
  const rules = new RulesService(rulesRepo, destinations, d.events, d.clock);
  const worker = new DeliveryWorker({
    repo: deliveriesRepo,
    destination: (id) => destinations.open(id),
    clock: d.clock,
    nodeId: d.nodeId,
    ctx,
    pollMs: d.workerPollMs,
    log: d.log,
  });
  const router = new NotificationRouter({
    rules: rulesRepo,
    repo: routingRepo,
    queue: deliveriesRepo,
    wake: () => worker.wake(),
    clock: d.clock,
    webHost: d.webHost,
    planOf: d.planOf,
  });
  const sweeps = new RoutingSweeps({
    router,
    rules: rulesRepo,
    repo: routingRepo,
    clock: d.clock,
    intervalMs: d.sweepIntervalMs,
    runnerTimeoutMs: d.runnerTimeoutMs,
    log: d.log,
  });
  /** What NotificationsService tells (its onEvent port): routed in the background, never thrown. */
  const onEvent = (e: RoutableEvent): void => {
    const event: RoutingEvent =
      e.type === 'approval'
        ? { type: 'approval', message: e.message }
        : { type: 'task', taskId: e.task.id, status: e.task.status, drift: e.task.drift };
    const routed = router.route(event);
    void routed.catch((err: unknown) => d.log?.(`notification routing failed: ${(err as Error).message}`));
  };
  return {
    destinations,
    rules,
    router,
    sweeps,
    worker,
    deliveries: deliveriesRepo,
    onEvent,
    start(): void {
      worker.start();
      sweeps.start();
    },
    async stop(): Promise<void> {
      await sweeps.stop();
      await worker.stop();
    },
  };
}

export type NotificationRouting = ReturnType<typeof createNotificationRouting>;
