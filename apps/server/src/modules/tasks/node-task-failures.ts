import { ACTIVE_STATUSES } from '@gantry/contracts';
import type { Clock } from '../../platform/clock.js';
import type { FrameSource } from '../../realtime/task-frames.js';
import type { EventsService } from '../events/events.service.js';
import type { TasksRepository } from './tasks.repository.js';

/** Every status of a task a node holds in a run (claimed and not yet final). */
const NODE_ACTIVE = ['starting', 'running', 'stopping', ...ACTIVE_STATUSES];

/** What failing a node's tasks needs of the tasks service. */
export interface NodeTaskFailureDeps {
  repo: TasksRepository;
  events: EventsService;
  clock: Clock;
  /** Sends a task's new state to the clients. */
  publish(task: FrameSource): void;
  /** The service's `endedOutsideRun`, called through so that the one wired in after construction is told. */
  endedOutsideRun(task: { id: number; status: string }): void;
}

/**
 * Fails the tasks a node holds in a run when no run can finish them: this node's after a restart
 * or when the orphan sweep finds them unheld, another node's when it stops answering.
 */
export class NodeTaskFailures {
  constructor(
    private readonly deps: NodeTaskFailureDeps,
    private readonly nodeId: string,
  ) {}

  /** At start-up: what this node was running when it stopped cannot go on. */
  async failOrphans(): Promise<number> {
    return this.failNodeTasks(
      this.nodeId,
      'The server restarted while this task was running; the task was failed.',
      (id) => `Task #${id} failed: the server restarted while it ran`,
    );
  }

  /**
   * Another node stopped answering: its running tasks fail, each with a log line saying why.
   * Every write is guarded by the task's status and owner, so a node coming back late finds its
   * tasks final and changes nothing.
   */
  async failDeadNode(deadNodeId: string): Promise<number> {
    return this.failNodeTasks(
      deadNodeId,
      `Node ${deadNodeId} stopped answering; the task was failed.`,
      (id) => `Task #${id} failed: node ${deadNodeId} stopped answering`,
    );
  }

  /** This node's tasks the database holds as active: the orphan sweep compares them with the live runs. */
  activeOnThisNode(): Promise<Array<{ id: number; status: string }>> {
    return this.deps.repo.orphans(this.nodeId, NODE_ACTIVE);
  }

  /**
   * The orphan sweep found these tasks of this node held by no live run (in two sweeps in a row):
   * they fail, each with a line saying why. Guarded by status and owner, as every node write is.
   */
  async failUnheld(tasks: Array<{ id: number; status: string }>): Promise<number> {
    const rows = await this.deps.repo.orphans(this.nodeId, NODE_ACTIVE);
    const wanted = new Map(tasks.map((t) => [t.id, t.status]));
    return this.failTasks(
      this.nodeId,
      rows.filter((r) => wanted.get(r.id) === r.status),
      'This server holds no run of this task any more (it ended, or never started, without storing a final status); the task was failed.',
      (id) => `Task #${id} failed: no run of its server held it any more`,
    );
  }

  private async failNodeTasks(nodeId: string, line: string, description: (id: number) => string): Promise<number> {
    return this.failTasks(nodeId, await this.deps.repo.orphans(nodeId, NODE_ACTIVE), line, description);
  }

  private async failTasks(
    nodeId: string,
    orphans: Array<{ id: number; project_id: number; status: string }>,
    line: string,
    description: (id: number) => string,
  ): Promise<number> {
    const { repo, events, clock } = this.deps;
    const now = clock.now().toISOString();
    let failed = 0;
    for (const t of orphans) {
      if (await repo.transition(t.id, [t.status], 'error', { end: now }, nodeId)) {
        failed += 1;
        await repo.appendOutput([{ task_id: t.id, seq: (await repo.lastSeq(t.id)) + 1, time: now, output: line }]);
        const row = await repo.findById(t.id);
        if (row) this.deps.publish(row);
        await events.record({
          projectId: t.project_id,
          userId: null,
          objectType: 'task',
          objectId: t.id,
          description: description(t.id),
        });
        this.deps.endedOutsideRun({ id: t.id, status: 'error' });
      }
    }
    return failed;
  }
}
