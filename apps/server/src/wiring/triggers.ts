import path from 'node:path';
import type { Config } from '../config/config.js';
import type { Db } from '../db/db.js';
import type { ProcessLauncher } from '../engine/process.js';
import type { TaskSandbox } from '../engine/sandbox.js';
import { Scheduler } from '../engine/scheduler.js';
import type { EventsService } from '../modules/events/events.service.js';
import type { IntegrationsRepository } from '../modules/integrations/integrations.repository.js';
import { WebhookDeliveriesRepository } from '../modules/integrations/webhook-deliveries.repository.js';
import { WebhookService } from '../modules/integrations/webhook.service.js';
import type { KeysService } from '../modules/keys/keys.service.js';
import type { RepositoriesService } from '../modules/repositories/repositories.service.js';
import { scheduleTaskParams } from '../modules/schedules/schedules.presenter.js';
import type { SchedulesRepository } from '../modules/schedules/schedules.repository.js';
import type { TasksService } from '../modules/tasks/tasks.service.js';
import type { WorkflowRunsService } from '../modules/workflow-runs/workflow-runs.service.js';
import type { Clock } from '../platform/clock.js';
import type { LocalPathPolicy } from '../platform/local-paths.js';

export interface TriggersDeps {
  config: Config;
  db: Db;
  clock: Clock;
  launcher: ProcessLauncher;
  sandbox: TaskSandbox;
  localPaths: LocalPathPolicy;
  schedulesRepo: SchedulesRepository;
  integrationsRepo: IntegrationsRepository;
  repositories: RepositoriesService;
  keys: KeysService;
  events: EventsService;
  tasks: TasksService;
  workflowRuns: WorkflowRunsService;
}

/** What starts tasks and workflow runs without a user: the scheduler, and the integrations' webhooks. */
export function createTriggers({
  config,
  db,
  clock,
  launcher,
  sandbox,
  localPaths,
  schedulesRepo,
  integrationsRepo,
  repositories,
  keys,
  events,
  tasks,
  workflowRuns,
}: TriggersDeps): { scheduler: Scheduler; webhooks: WebhookService } {
  const scheduler = new Scheduler({
    schedules: schedulesRepo,
    repositories,
    keys,
    launcher,
    clock,
    workRoot: config.taskDir,
    taskOwner: sandbox.taskOwner,
    knownHostsDir: path.join(config.dataDir, 'known_hosts'),
    systemPath: config.systemPath,
    localPaths,
    fire: async (s, commitHash) => {
      const stored = scheduleTaskParams(s.task_params);
      // A drift check schedule plans only: its task carries params.drift_check (never applied).
      const drift = s.type === 'drift_check';
      await tasks.create(
        null,
        s.project_id,
        {
          template_id: s.template_id!,
          message: drift ? `Drift check (schedule ${s.name})` : `Schedule ${s.name}`,
          commit_hash: commitHash,
          // The schedule's answers to the template's parameters, checked again as the task starts.
          environment: stored?.environment ?? '{}',
          secret: '{}',
          params: drift ? { drift_check: { refresh_only: stored?.refresh_only ?? false } } : {},
          // A drift check's workspace (checked again as the task is made); none: the template's.
          ...(drift && stored?.inventory_id ? { inventory_id: stored.inventory_id } : {}),
        },
        { scheduleId: s.id },
      );
    },
    fireWorkflow: async (s) => {
      await workflowRuns.start(null, s.project_id, s.workflow_id, { scheduleId: s.id });
    },
    onError: (s, err) =>
      events
        .record({
          projectId: s.project_id,
          userId: null,
          objectType: 'schedule',
          objectId: s.id,
          description: `Schedule ${s.name} could not run: ${(err as Error).message}`,
        })
        .catch(() => undefined),
  });
  const webhooks = new WebhookService(
    integrationsRepo,
    keys,
    tasks,
    events,
    new WebhookDeliveriesRepository(db.db),
    clock,
  );
  webhooks.workflows = workflowRuns;
  return { scheduler, webhooks };
}
