import type { Clock } from '../platform/clock.js';
import type { EventBus } from '../realtime/bus.js';
import { taskUpdateFrame } from '../realtime/task-frames.js';
import { LocalRuns } from './local-runs.js';
import type { TaskStore } from './ports.js';

/**
 * The queue lives in the database; the dispatcher claims waiting tasks (an atomic
 * waiting -> starting update, so two nodes never run one task) while this node has a free slot
 * and the task's project is under its max_parallel_tasks. It runs when woken: a task was queued
 * or one finished. No polling interval.
 */
export class Dispatcher {
  private passing = false;
  private again = false;
  private stopped = false;
  private readonly unsubscribe: () => void;

  constructor(
    private readonly tasks: TaskStore,
    private readonly bus: EventBus,
    private readonly clock: Clock,
    private readonly nodeId: string,
    private readonly maxParallel: number,
    private readonly runTask: (taskId: number) => Promise<void>,
    /** This process's runs, shared with the drain and the cluster's fence. */
    readonly runs: LocalRuns = new LocalRuns(),
  ) {
    this.unsubscribe = bus.onKick(() => this.kick());
  }

  get activeCount(): number {
    return this.runs.size;
  }

  runningIds(): number[] {
    return this.runs.ids();
  }

  isRunningHere(taskId: number): boolean {
    return this.runs.has(taskId);
  }

  /** Whether it still claims tasks (false once closed: a drain, or remote runners take every task). */
  get claiming(): boolean {
    return !this.stopped;
  }

  kick(): void {
    if (this.stopped) return;
    if (this.passing) {
      this.again = true;
      return;
    }
    this.passing = true;
    void this.pass()
      .catch(() => undefined)
      .finally(() => {
        this.passing = false;
        if (this.again) {
          this.again = false;
          this.kick();
        }
      });
  }

  /** Stops claiming; running tasks go on until they end (`runs.whenIdle()`). */
  close(): void {
    this.stopped = true;
    this.unsubscribe();
  }

  private async pass(): Promise<void> {
    if (this.stopped || this.runs.size >= this.maxParallel) return;
    const candidates = await this.tasks.waiting(100);
    const busyProjects = new Set<number>();
    for (const c of candidates) {
      if (this.stopped || this.runs.size >= this.maxParallel) return;
      if (busyProjects.has(c.project_id)) continue;
      if (c.max_parallel_tasks > 0 && (await this.tasks.countActive(c.project_id)) >= c.max_parallel_tasks) {
        busyProjects.add(c.project_id);
        continue;
      }
      const start = this.clock.now().toISOString();
      const claimed = await this.tasks.claim(c.id, this.nodeId, start);
      if (!claimed) continue;
      this.bus.publish(taskUpdateFrame({ ...c, status: 'starting', start, end: null }));
      const done = this.runTask(c.id).catch(() => undefined);
      this.runs.track(c.id, done);
      void done.finally(() => this.kick());
    }
  }
}
