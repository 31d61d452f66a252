import type { Config } from '../config/config.js';
import type { Db } from '../db/db.js';
import { loadRunContext } from '../engine/run-context.js';
import type { AppsService } from '../modules/apps/apps.service.js';
import type { AuditService } from '../modules/audit/audit.service.js';
import type { EventsService } from '../modules/events/events.service.js';
import { RunnerProtocolService } from '../modules/runners/runner-protocol.service.js';
import { RunnerWakeup } from '../modules/runners/runner-wakeup.js';
import { RunnersRepository } from '../modules/runners/runners.repository.js';
import { RunnersService } from '../modules/runners/runners.service.js';
import type { TasksRepository } from '../modules/tasks/tasks.repository.js';
import type { TasksService } from '../modules/tasks/tasks.service.js';
import type { Clock } from '../platform/clock.js';
import { generateRunnerKeyPair } from '../platform/envelope.js';
import type { EventBus } from '../realtime/bus.js';
import type { TaskEngine } from './task-engine.js';

export interface RunnersDeps {
  config: Config;
  db: Db;
  clock: Clock;
  bus: EventBus;
  events: EventsService;
  audit: AuditService;
  apps: AppsService;
  tasksRepo: TasksRepository;
  tasks: TasksService;
  /** What a local run is given: a remote runner's job is loaded and reported the same way. */
  runnerDeps: TaskEngine['runnerDeps'];
  runWorkspace: TaskEngine['runWorkspace'];
}

/**
 * Remote runners (GANTRY_USE_REMOTE_RUNNER): their registrations, the protocol they speak, and the
 * wake-up sent to them when a task starts waiting.
 */
export function createRunners({
  config,
  db,
  clock,
  bus,
  events,
  audit,
  apps,
  tasksRepo,
  tasks,
  runnerDeps,
  runWorkspace,
}: RunnersDeps): { runners: RunnersService; runnerProtocol: RunnerProtocolService } {
  const runnersRepo = new RunnersRepository(db.db);
  const runners = new RunnersService(runnersRepo, events, clock, generateRunnerKeyPair);
  runners.audit = audit;
  const runnerProtocol = new RunnerProtocolService({
    runners: runnersRepo,
    tasks: tasksRepo,
    loadContext: (task) => loadRunContext(runnerDeps, task),
    apps,
    bus,
    events,
    clock,
    enabled: config.useRemoteRunner,
    timeoutMs: config.runnerTimeoutSeconds * 1000,
    onFinished: runnerDeps.onFinished,
    onWaitingConfirmation: runnerDeps.onWaitingConfirmation,
    // A runner's plan and drift reports, filed under the workspace its run used (as a local run's).
    onPlanSummary: async (t, summary) => runnerDeps.onPlanSummary(t, await runWorkspace(t), summary),
    onDrift: async (t, r) => runnerDeps.onDrift(t, await runWorkspace(t), r),
  });
  tasks.stopRequested = (id, force) => runnerProtocol.stopRequested(id, force);
  if (config.useRemoteRunner) {
    const wakeup = new RunnerWakeup(runnersRepo, events);
    bus.onMessage((m) => {
      if (m.type === 'update' && m.status === 'waiting' && m.template_id !== null)
        void wakeup
          .taskWaiting({ task_id: m.task_id, project_id: m.project_id, template_id: m.template_id })
          .catch(() => undefined);
    });
  }
  return { runners, runnerProtocol };
}
