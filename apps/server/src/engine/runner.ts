import type { App } from '@gantry/contracts';
import type { Clock } from '../platform/clock.js';
import type { EventBus } from '../realtime/bus.js';
import type { TaskRow, TasksRepository } from '../modules/tasks/tasks.repository.js';
import { TaskExecutor, type ExecutionHost, type ExecutorDeps } from './executor.js';
import { LogSink } from './log-sink.js';
import { loadRunContext, type RunContextDeps } from './run-context.js';

export { inside } from './executor.js';

export interface RunnerDeps extends RunContextDeps, ExecutorDeps {
  tasks: TasksRepository;
  bus: EventBus;
  clock: Clock;
  /** The apps as configured now: read when each task starts, so a change applies to the next one. */
  apps: { find(id: string): Promise<App | null> };
  /** Called once the final status is stored (events, deploy autorun, notifications). */
  onFinished(task: TaskRow): Promise<void>;
  /** Called when a task starts waiting for confirmation (notifications); must not throw. */
  onWaitingConfirmation?(task: TaskRow): void;
}

/** Runs one claimed task in this server process from `starting` to its final status; never throws. */
export class TaskRun {
  constructor(
    private readonly d: RunnerDeps,
    private readonly task: TaskRow,
  ) {}

  async run(): Promise<void> {
    const { d, task } = this;
    const log = new LogSink(task.id, task.project_id, d.tasks, d.bus, d.clock, []);
    const host: ExecutionHost = {
      log: (line) => log.write(line),
      setStatus: async (from, to) => {
        await log.sync();
        if (!(await d.tasks.transition(task.id, from, to))) return false;
        d.bus.publish({ type: 'update', project_id: task.project_id, task_id: task.id, template_id: task.template_id, status: to });
        return true;
      },
      commit: (hash, message) => d.tasks.update(task.id, { commit_hash: hash, commit_message: message }),
      onWaitingConfirmation: () => d.onWaitingConfirmation?.({ ...task, status: 'waiting_confirmation' }),
    };
    const executor = new TaskExecutor(d, host);
    const unsubscribe = d.bus.onControl((c) => {
      if (c.taskId === task.id) executor.control(c.action);
    });
    let status: 'success' | 'error' | 'stopped' | 'rejected' = 'error';
    try {
      log.write(`Task #${task.id} started`);
      await executor.setStatus(['starting'], 'running');
      const ctx = await loadRunContext(d, task);
      for (const s of ctx.secrets) log.addSecret(s);
      const app = await d.apps.find(ctx.template.app);
      if (!app) throw new Error(`App ${ctx.template.app} not found`);
      if (!app.active) throw new Error(`App ${app.title} is not active`);
      await executor.execute(ctx, app);
      status = 'success';
    } catch (e) {
      status = executor.outcome(e);
    } finally {
      unsubscribe();
      executor.cleanup();
      log.write(`Task #${task.id} finished: ${status}`);
      await log.close().catch(() => undefined);
    }
    const end = d.clock.now().toISOString();
    const moved = await d.tasks.transition(task.id, ['starting', 'running', 'stopping', 'confirmed', 'waiting_confirmation'], status, { end });
    if (!moved) await d.tasks.update(task.id, { end });
    const final = (await d.tasks.findById(task.id))!;
    d.bus.publish({ type: 'update', project_id: final.project_id, task_id: final.id, template_id: final.template_id, status: final.status });
    await d.onFinished(final);
  }
}
