import type { PlanSummary } from '@gantry/contracts';
import path from 'node:path';
import type { Config } from '../config/config.js';
import { templateIdList } from '../db/template-lists.js';
import type { CheckoutCache } from '../engine/checkout-cache.js';
import { Dispatcher } from '../engine/dispatcher.js';
import { Drain } from '../engine/drain.js';
import type { DriftResult } from '../engine/executor.js';
import { fencedRunStore } from '../engine/fencing.js';
import { LocalRuns } from '../engine/local-runs.js';
import { LogRetryBuffer } from '../engine/log-retry-buffer.js';
import type { ProcessLauncher } from '../engine/process.js';
import { TaskRun, type RunnerDeps } from '../engine/runner.js';
import type { TaskSandbox } from '../engine/sandbox.js';
import type { TerraformStateStore } from '../engine/terraform-state.js';
import type { AppsService } from '../modules/apps/apps.service.js';
import { runAsCaller } from '../modules/audit/audit-context.js';
import type { EnvironmentsService } from '../modules/environments/environments.service.js';
import type { HostsService } from '../modules/hosts/hosts.service.js';
import type { InventoriesService } from '../modules/inventories/inventories.service.js';
import { readUrlInventory } from '../modules/inventories/url-inventory.js';
import type { KeysService } from '../modules/keys/keys.service.js';
import type { NotificationsService } from '../modules/notifications/notifications.service.js';
import type { ProjectsService } from '../modules/projects/projects.service.js';
import type { RepositoriesService } from '../modules/repositories/repositories.service.js';
import type { TaskOutputRepository } from '../modules/tasks/task-output.repository.js';
import type { TasksRepository } from '../modules/tasks/tasks.repository.js';
import type { TasksService } from '../modules/tasks/tasks.service.js';
import type { TemplatesService } from '../modules/templates/templates.service.js';
import type { TerraformBackendService } from '../modules/terraform-backend/terraform-backend.service.js';
import type { TerraformPlansService } from '../modules/terraform-plans/terraform-plans.service.js';
import type { TerraformStatesService } from '../modules/terraform-states/terraform-states.service.js';
import type { UsersService } from '../modules/users/users.service.js';
import type { Clock } from '../platform/clock.js';
import type { SecretBox } from '../platform/crypto.js';
import type { LocalPathPolicy } from '../platform/local-paths.js';
import type { SelfUrl } from '../platform/self-url.js';
import type { EventBus } from '../realtime/bus.js';
import { StoredControls } from '../realtime/stored-controls.js';

type TaskRow = Parameters<TasksService['finished']>[0];

export interface TaskEngineDeps {
  config: Config;
  node: string;
  clock: Clock;
  bus: EventBus;
  box: SecretBox;
  localPaths: LocalPathPolicy;
  launcher: ProcessLauncher;
  sandbox: TaskSandbox;
  checkoutCache: CheckoutCache | undefined;
  tasksRepo: TasksRepository;
  outputRepo: TaskOutputRepository;
  users: UsersService;
  projects: ProjectsService;
  templates: TemplatesService;
  repositories: RepositoriesService;
  inventories: InventoriesService;
  environments: EnvironmentsService;
  keys: KeysService;
  apps: AppsService;
  tasks: TasksService;
  notifications: NotificationsService;
  terraformState: TerraformStateStore;
  terraformStates: TerraformStatesService;
  terraformBackend: TerraformBackendService;
  terraformPlans: TerraformPlansService;
  selfUrl: SelfUrl;
  /**
   * Records the hosts of a finished task's PLAY RECAP. Late-bound: the hosts service is created
   * after the engine, and this is called only when a task ends.
   */
  recordHosts: HostsService['recordTask'];
}

/** What a local run is given; the runner protocol reuses its callbacks for the runs of remote runners. */
export type LocalRunnerDeps = RunnerDeps &
  Required<Pick<RunnerDeps, 'onWaitingConfirmation' | 'onPlanSummary' | 'onDrift'>>;

export interface TaskEngine {
  runs: LocalRuns;
  runnerDeps: LocalRunnerDeps;
  /** The workspace inventory a run uses (null: none). */
  runWorkspace: (t: TaskRow) => Promise<number | null>;
  dispatcher: Dispatcher;
  drain: Drain;
}

/**
 * This node's task engine: what each run is given (and what happens when it ends), the dispatcher
 * that claims queued tasks, the drain that stops them, and the bus listeners that keep it current.
 */
export function createTaskEngine({
  config,
  node,
  clock,
  bus,
  box,
  localPaths,
  launcher,
  sandbox,
  checkoutCache,
  tasksRepo,
  outputRepo,
  users,
  projects,
  templates,
  repositories,
  inventories,
  environments,
  keys,
  apps,
  tasks,
  notifications,
  terraformState,
  terraformStates,
  terraformBackend,
  terraformPlans,
  selfUrl,
  recordHosts,
}: TaskEngineDeps): TaskEngine {
  // This process's runs: the dispatcher tracks them, the drain and the cluster's fence stop them.
  const runs = new LocalRuns();
  const runnerDeps = {
    nodeId: node,
    runs,
    // A run needs the template and its vaults, not its newest task or drift (get() reads those
    // for the API: a query over the template's tasks that every run paid, growing with the history).
    templates: { get: (projectId: number, id: number) => templates.getForTask(projectId, id) },
    repositories,
    inventories,
    environments,
    keys,
    box,
    localPaths,
    // What a run is told of its task (semaphore_vars, SEMAPHORE_TASK_*): its author and its link.
    authors: {
      get: async (projectId: number, userId: number) => {
        const user = await users.findById(userId);
        return user
          ? {
              username: user.username,
              admin: user.admin === 1,
              role: (await projects.membership(projectId, userId)).role,
            }
          : null;
      },
    },
    webHost: config.webHost,
    // URL inventories are fetched by the server (never a runner); file and URL reads are recorded.
    inventoryReads: {
      fetchUrl: (url: string) => readUrlInventory(url, config.fetchAllowedHosts),
      record: (projectId: number, id: number, error: string | null) => inventories.recordRead(projectId, id, error),
    },
    // A run's lines and final status are stored only while its task is this node's (fencing.ts).
    tasks: fencedRunStore(tasksRepo, outputRepo, node, runs),
    bus,
    clock,
    launcher,
    sandbox,
    workRoot: config.taskDir,
    knownHostsDir: path.join(config.dataDir, 'known_hosts'),
    checkoutCache,
    terraformState,
    terraformBackend,
    serverUrl: () => selfUrl.get(),
    systemPath: config.systemPath,
    apps,
    maxLogLines: config.maxTaskLogLines,
    logRetryBuffer: new LogRetryBuffer(config.logRetryBufferBytes),
    onFinished: (t: TaskRow) => {
      // The task's state backend session ends with it (its address stops, its lock goes).
      void terraformBackend.closeSession(t.id).catch(() => undefined);
      // Failed by another node while this one was declared dead: that node told everyone already.
      if (runs.isLost(t.id)) return Promise.resolve();
      notifications.dispatch(t);
      // The hosts of its PLAY RECAP first: whoever sees the task ended finds them in the hosts view.
      return recordHosts(t).then(() => tasks.finished(t));
    },
    onWaitingConfirmation: (t: TaskRow) => notifications.dispatch(t),
    // The plan is stored before confirmation is offered; a drift check's finding once its plan ended.
    onPlanSummary: (t: TaskRow, inventoryId: number | null, summary: PlanSummary) =>
      terraformPlans.recordPlan(t, inventoryId, summary),
    onDrift: async (t: TaskRow, inventoryId: number | null, r: DriftResult) => {
      if (!(await terraformPlans.recordDrift(t, inventoryId, r))) return;
      const workspace =
        inventoryId === null
          ? null
          : await inventories.get(t.project_id, inventoryId).then(
              (i) => i.name,
              () => null,
            );
      notifications.driftFound(t.id, workspace, r.summary);
    },
    // Gantry stores the state a run left: its entry is not the request that happened to start the run.
    onTerraformState: (t: TaskRow, inventoryId: number, state: string) =>
      runAsCaller({ authKind: 'system' }, () =>
        terraformStates.record({ projectId: t.project_id, inventoryId, taskId: t.id, status: t.status, state }),
      ),
  };
  // The workspace inventory a run uses, as the run context picks it: the task's inventory, else the template's first.
  const runWorkspace = async (t: TaskRow): Promise<number | null> => {
    const template = await templates.getForTask(t.project_id, t.template_id).catch(() => null);
    const id =
      t.inventory_id ?? (template ? templateIdList(template.inventory_id, template.inventory_ids)[0] : undefined);
    if (!id) return null;
    const inv = await inventories.get(t.project_id, id).catch(() => null);
    return inv?.type.endsWith('-workspace') ? inv.id : null;
  };
  const dispatcher = new Dispatcher(
    tasksRepo,
    bus,
    clock,
    node,
    config.maxParallelTasks,
    async (id) => {
      const task = await tasksRepo.findById(id);
      if (task) await new TaskRun(runnerDeps, task).run();
    },
    runs,
  );
  const drain = new Drain({
    stopClaiming: () => dispatcher.close(),
    runs,
    timeoutMs: config.shutdownTimeoutSeconds * 1000,
    say: (line) => process.stderr.write(`${line}\n`),
  });
  // With remote runners every task waits for a runner whose tag matches: this node claims none.
  if (config.useRemoteRunner) dispatcher.close();
  // After the bus lost the other nodes for a while: re-read the queue. Stop, confirm and reject
  // requests for this node's tasks made meanwhile are read from their rows, also while it is away.
  bus.onReconnect(() => dispatcher.kick());
  new StoredControls({ bus, runningIds: () => dispatcher.runningIds(), readTask: (id) => tasksRepo.findById(id) });
  return { runs, runnerDeps, runWorkspace, dispatcher, drain };
}
