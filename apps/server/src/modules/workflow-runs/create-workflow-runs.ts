import type { Kysely } from 'kysely';
import { isFinished } from '@gantry/contracts';
import type { Database } from '../../db/types.js';
import type { Clock } from '../../platform/clock.js';
import type { EventBus } from '../../realtime/bus.js';
import type { EventsService } from '../events/events.service.js';
import type { WorkflowsService } from '../workflows/workflows.service.js';
import type { TaskActor } from '../tasks/tasks.service.js';
import { WorkflowDriver, type DriverTasks } from './workflow-driver.js';
import { WorkflowRunsRepository } from './workflow-runs.repository.js';
import { WorkflowRunsService } from './workflow-runs.service.js';

export interface WorkflowRunsDeps {
  db: Kysely<Database>;
  workflows: Pick<WorkflowsService, 'get'>;
  tasks: DriverTasks;
  events: EventsService;
  bus: EventBus;
  clock: Clock;
  nodeId: string;
  actorFor(projectId: number, userId: number | null): Promise<TaskActor | null>;
  log: (line: string) => void;
}

/**
 * The runs service and this node's driver, wired together. A task of a run that ends (or starts
 * waiting for approval) makes its run due at once, on whichever node hears it: the run's next
 * step starts within a poll instead of at the next recheck.
 */
export function createWorkflowRuns(d: WorkflowRunsDeps): {
  service: WorkflowRunsService;
  driver: WorkflowDriver;
  repo: WorkflowRunsRepository;
} {
  const repo = new WorkflowRunsRepository(d.db);
  const service = new WorkflowRunsService(repo, d.workflows, d.events, d.clock);
  const driver = new WorkflowDriver({
    repo,
    tasks: d.tasks,
    startChild: (parent, node, attempt) => service.startChild(parent, node, attempt),
    actorFor: d.actorFor,
    clock: d.clock,
    nodeId: d.nodeId,
    log: d.log,
  });
  service.kick = () => driver.kick();
  d.bus.onMessage((m) => {
    if (m.type !== 'update' || !(isFinished(m.status) || m.status === 'waiting_approval')) return;
    void repo
      .wakeForTask(m.task_id, d.clock.now().toISOString())
      .then(() => driver.kick())
      .catch(() => undefined);
  });
  return { service, driver, repo };
}
