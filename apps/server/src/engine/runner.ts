import type { App, PlanSummary } from '@gantry/contracts';
import type { Clock } from '../platform/clock.js';
import type { EventBus } from '../realtime/bus.js';
import { taskUpdateFrame } from '../realtime/task-frames.js';
import type { TaskRecord, TaskStore } from './ports.js';
import { TaskExecutor, type DriftResult, type ExecutionHost, type ExecutorDeps } from './executor.js';
import { finalStatusTroubleLine, storageVerdict, untilStored, type FinalStatus } from './final-status.js';
import type { LogRetryBuffer } from './log-retry-buffer.js';
import { LogSink, type LogSeqReader } from './log-sink.js';
import { loadRunContext, type RunContextDeps } from './run-context.js';
import { maskOutput, storedJson } from './task-outputs.js';
import type { LocalRuns } from './local-runs.js';

export { inside } from './executor.js';

export interface RunnerDeps extends RunContextDeps, ExecutorDeps {
  /** Reads how far a log got, so a batch retried after an unclear failure is never stored twice. */
  tasks: TaskStore & LogSeqReader;
  bus: EventBus;
  clock: Clock;
  /** The apps as configured now: read when each task starts, so a change applies to the next one. */
  apps: { find(id: string): Promise<App | null> };
  /** This node: every status write of a run holds only while the task is still this node's. */
  nodeId?: string;
  /** Lines of process output kept per task (GANTRY_MAX_TASK_LOG_LINES). */
  maxLogLines?: number;
  /** This node's memory for log lines the database has not taken yet (GANTRY_LOG_RETRY_BUFFER_MB), shared by its runs. */
  logRetryBuffer?: LogRetryBuffer;
  /** Called once the final status is stored (events, deploy autorun, notifications). */
  onFinished(task: TaskRecord): Promise<void>;
  /** Called when a task starts waiting for confirmation (notifications); must not throw. */
  onWaitingConfirmation?(task: TaskRecord): void;
  /** Called after the final status with the state a terraform/tofu run left in its workspace inventory. */
  onTerraformState?(task: TaskRecord, inventoryId: number, state: string): Promise<void>;
  /**
   * A terraform/tofu plan was summarised (with its policy verdict), with the task's workspace
   * inventory (null: none); stored before confirmation is offered. A failure fails the task when
   * the policy names who confirms (the check reads the stored plan), else it is swallowed.
   */
  onPlanSummary?(task: TaskRecord, inventoryId: number | null, summary: PlanSummary): Promise<void>;
  /** A drift check's finding for the task's template and workspace (null: none). Failures are swallowed. */
  onDrift?(task: TaskRecord, inventoryId: number | null, result: DriftResult): Promise<void>;
  /** This node's runs: a shutdown's drain and the cluster's fence stop this run through it. */
  runs?: LocalRuns;
}

/** Runs one claimed task in this server process from `starting` to its final status; never throws. */
export class TaskRun {
  constructor(
    private readonly d: RunnerDeps,
    private readonly task: TaskRecord,
  ) {}

  async run(): Promise<void> {
    const { d, task } = this;
    const log = new LogSink(task.id, task.project_id, d.tasks, d.bus, d.clock, [], {
      maxLines: d.maxLogLines,
      retryBuffer: d.logRetryBuffer,
    });
    let workspaceId: number | null = null;
    // Set by the executor when an apply changed the workspace's state; stored once the final status is known.
    const tf: { state: string | null } = { state: null };
    const host: ExecutionHost = {
      log: (line) => log.write(line),
      note: (line) => log.note(line),
      flow: log,
      setStatus: async (from, to) => {
        await log.sync();
        if (!(await d.tasks.transition(task.id, from, to, {}, d.nodeId))) return false;
        d.bus.publish(taskUpdateFrame({ ...task, status: to }));
        return true;
      },
      commit: (hash, message) => d.tasks.update(task.id, { commit_hash: hash, commit_message: message }),
      onWaitingConfirmation: () => d.onWaitingConfirmation?.({ ...task, status: 'waiting_confirmation' }),
      onInventoryRead: (id, error) => void d.inventoryReads?.record(task.project_id, id, error).catch(() => undefined),
      onTerraformState: (state) => {
        tf.state = state;
      },
      onPlanSummary: async (summary) => {
        // The stored plan is what a confirm's role check reads: a plan whose policy names who
        // confirms it is never offered when it could not be stored (the task fails instead).
        await d.onPlanSummary?.(task, workspaceId, summary).catch((e: unknown) => {
          if (summary.policy?.confirm_role)
            throw new Error(
              `The plan could not be stored, so its policy could not be enforced: ${(e as Error).message}`,
            );
        });
      },
      onDrift: async (result) => {
        await d.onDrift?.(task, workspaceId, result).catch(() => undefined);
      },
    };
    const executor = new TaskExecutor(d, host);
    const unsubscribe = d.bus.onControl((c) => {
      if (c.taskId === task.id) executor.control(c.action);
    });
    const detach = d.runs?.attach(task.id, {
      note: (line) => log.note(line),
      control: (action) => executor.control(action),
    });
    let status: FinalStatus = 'error';
    let secrets: string[] = [];
    try {
      log.note(`Task #${task.id} started`);
      await executor.setStatus(['starting'], 'running');
      const ctx = await loadRunContext(d, task);
      if (ctx.inventory?.type.endsWith('-workspace')) workspaceId = ctx.inventory.id;
      for (const s of ctx.secrets) log.addSecret(s);
      secrets = ctx.secrets;
      const app = await d.apps.find(ctx.template.app);
      if (!app) throw new Error(`App ${ctx.template.app} not found`);
      if (!app.active) throw new Error(`App ${app.title} is not active`);
      await executor.execute(ctx, app);
      status = 'success';
    } catch (e) {
      status = executor.outcome(e);
    } finally {
      unsubscribe();
      detach?.();
      await executor.cleanup();
      // What the task printed is stored first, however long the database is away: whether any of
      // it was lost (or the disk filled) decides the outcome.
      await log.sync();
      const verdict = storageVerdict(status, log.storage);
      status = verdict.status;
      for (const line of verdict.lines) log.note(line);
      log.note(`Task #${task.id} finished: ${status}`);
      await log.close();
    }
    const end = d.clock.now().toISOString();
    const wanted = status;
    // Stored with the final status, so whoever sees the task ended (a workflow run) sees its output too.
    const output = storedJson(maskOutput(executor.output, secrets));
    // Tried until it lands: a final write lost to an outage would leave the task `running` for good.
    const write = await untilStored(async (diskFull) => {
      status = diskFull && wanted === 'success' ? 'error' : wanted;
      const moved = await d.tasks.transition(
        task.id,
        ['starting', 'running', 'stopping', 'confirmed', 'waiting_confirmation'],
        status,
        output === null ? { end } : { end, output },
        d.nodeId,
      );
      // Already final (rejected, or failed by another node when this one stopped answering): the
      // end time is filled in only if nobody set it.
      if (!moved) await d.tasks.setEndIfMissing(task.id, end);
      return (await d.tasks.findById(task.id))!;
    });
    const final = write.value;
    // Told only when the status stored is this run's (not when another node had ended the task meanwhile).
    if (write.troubleMs > 0 && final.status === status) {
      log.note(finalStatusTroubleLine(write, status, wanted));
      await log.close();
    }
    if (workspaceId !== null && tf.state !== null) {
      // Stored before the final update goes out, so a console reloading on it sees the version.
      // The task's log is closed by now; a failure to store a version must not lose its outcome.
      await d.onTerraformState?.(final, workspaceId, tf.state).catch(() => undefined);
    }
    d.bus.publish(taskUpdateFrame(final));
    await d.onFinished(final);
  }
}
