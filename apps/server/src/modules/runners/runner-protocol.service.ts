import { FINISHED_STATUSES, isFinished, type RunnerControl, type RunnerJob, type RunnerLogBody, type RunnerPollResponse, type RunnerStatusBody, ErrorCodes } from '@gantry/contracts';
import type { App } from '@gantry/contracts';
import { maskSecrets } from '../../platform/mask-secrets.js';
import type { RunContext } from '../../engine/ports.js';
import type { Clock } from '../../platform/clock.js';
import { sealTo } from '../../platform/envelope.js';
import { ConflictError, NotFoundError } from '../../platform/errors.js';
import type { EventBus } from '../../realtime/bus.js';
import type { EventsService } from '../events/events.service.js';
import { taskUpdateFrame } from '../../realtime/task-frames.js';
import type { TaskRow, TasksRepository } from '../tasks/tasks.repository.js';
import type { RunnerRow, RunnersRepository } from './runners.repository.js';

export interface RunnerProtocolDeps {
  runners: RunnersRepository;
  tasks: TasksRepository;
  /** Loads and decrypts what a task's run needs (the engine's run context), for its job package. */
  loadContext(task: TaskRow): Promise<RunContext>;
  apps: { find(id: string): Promise<App | null> };
  bus: EventBus;
  events: EventsService;
  clock: Clock;
  /** Remote runners on: runners get work. Off: every task runs in the server and runners idle. */
  enabled: boolean;
  /** A runner silent this long has its tasks failed. */
  timeoutMs: number;
  /** Called once a task's final status is stored (events, autorun, notifications). */
  onFinished(task: TaskRow): Promise<void>;
  onWaitingConfirmation?(task: TaskRow): void;
}

/** Claims go at most this far in one poll even for an unlimited runner. */
const CLAIM_BATCH = 10;
const REMOTE_ACTIVE = ['starting', 'running', 'stopping', 'confirmed', 'waiting_confirmation'];
/** The answer to a runner's log or status for a task that has ended (409). */
export const TASK_FINISHED = 'The task has already finished';

/**
 * The server side of the runner protocol: heartbeat and claim (poll), job packages sealed to the
 * runner's public key, log lines and status reports for tasks that runner claimed, and the check
 * that fails tasks of runners that stopped calling. Everything lives in the database, so any
 * server node may answer any runner.
 */
export class RunnerProtocolService {
  /** Secrets to mask per task; rebuilt from the database when missing (another node, a restart). */
  private readonly secrets = new Map<number, string[]>();

  constructor(private readonly d: RunnerProtocolDeps) {}

  async poll(runner: RunnerRow, running: number[]): Promise<RunnerPollResponse> {
    const now = this.d.clock.now().toISOString();
    await this.d.runners.update(runner.id, { touched: now });
    const control = await this.controlFor(runner, running);
    const clearCache = runner.cleaning_requested === 1 && (await this.d.runners.takeCleaning(runner.id));
    const jobs: RunnerJob[] = [];
    if (this.d.enabled && runner.active === 1) {
      for (const task of await this.claim(runner, now)) {
        const job = await this.jobFor(runner, task);
        if (job) jobs.push(job);
      }
    }
    return { jobs, control, clear_cache: clearCache };
  }

  /** Stored, masked and published exactly like the lines of a local run; none once the task ended. */
  async log(runner: RunnerRow, taskId: number, body: RunnerLogBody): Promise<void> {
    const task = await this.openTask(runner, taskId);
    const secrets = await this.secretsOf(task);
    let seq = body.lines.some((l) => l.seq === undefined) ? await this.d.runners.maxSeq(taskId) : 0;
    const lines = body.lines.map((l) => {
      seq = l.seq ?? seq + 1;
      return { task_id: taskId, seq, time: validTime(l.time) ?? this.d.clock.now().toISOString(), output: maskSecrets(l.output, secrets) };
    });
    await this.d.tasks.appendOutput(lines);
    this.d.bus.publishLines({ project_id: task.project_id, task_id: taskId, lines });
  }

  /**
   * A status reported by the runner; moves only the runner's own tasks, along the same paths as
   * local runs. A task that has ended takes no more reports (409).
   */
  async status(runner: RunnerRow, taskId: number, body: RunnerStatusBody): Promise<void> {
    const task = await this.openTask(runner, taskId);
    if (body.commit_hash) await this.d.tasks.update(taskId, { commit_hash: body.commit_hash, commit_message: (body.commit_message ?? '').slice(0, 200) });
    switch (body.status) {
      case 'running':
        if (await this.d.tasks.transition(taskId, ['starting', 'confirmed', 'waiting_confirmation'], 'running')) this.publish(task, 'running');
        return;
      case 'waiting_confirmation':
        if (await this.d.tasks.transition(taskId, ['running'], 'waiting_confirmation')) {
          this.publish(task, 'waiting_confirmation');
          this.d.onWaitingConfirmation?.({ ...task, status: 'waiting_confirmation' });
        }
        return;
      case 'success':
      case 'error':
      case 'stopped':
      case 'rejected':
        // Lost to a concurrent end (the timeout, a repeated report): nothing was stored.
        if (!(await this.finish(task, body.status))) throw new ConflictError(TASK_FINISHED, { code: ErrorCodes.taskFinished });
    }
  }

  /** Fails the tasks of runners silent for longer than the timeout; answers how many. */
  async failSilent(): Promise<number> {
    const now = this.d.clock.now();
    const cutoff = new Date(now.getTime() - this.d.timeoutMs).toISOString();
    let failed = 0;
    for (const t of await this.d.runners.silentTasks(cutoff)) {
      // The conditional update is the claim: with several server nodes only one fails the task.
      if (!(await this.d.tasks.transition(t.id, [t.status], 'error', { end: now.toISOString() }))) continue;
      failed++;
      const seq = (await this.d.runners.maxSeq(t.id)) + 1;
      const output = `Runner #${t.runner_id} stopped responding (no contact for ${Math.round(this.d.timeoutMs / 1000)} s); the task was failed.`;
      const line = { task_id: t.id, seq, time: now.toISOString(), output };
      await this.d.tasks.appendOutput([line]);
      this.d.bus.publishLines({ project_id: t.project_id, task_id: t.id, lines: [line] });
      this.secrets.delete(t.id);
      const final = await this.d.tasks.findById(t.id);
      if (final) {
        this.publish(final, 'error');
        await this.d.onFinished(final).catch(() => undefined);
      }
    }
    return failed;
  }

  private async claim(runner: RunnerRow, now: string): Promise<TaskRow[]> {
    const running = await this.d.runners.countRunning(runner.id);
    const slots = runner.max_parallel_tasks > 0 ? Math.min(runner.max_parallel_tasks - running, CLAIM_BATCH) : CLAIM_BATCH;
    if (slots <= 0) return [];
    const claimed: TaskRow[] = [];
    const busyProjects = new Set<number>();
    for (const c of await this.d.runners.claimable(runner, 100)) {
      if (claimed.length >= slots) break;
      if (busyProjects.has(c.project_id)) continue;
      if (c.max_parallel_tasks > 0 && (await this.d.tasks.countActive(c.project_id)) >= c.max_parallel_tasks) {
        busyProjects.add(c.project_id);
        continue;
      }
      if (!(await this.d.tasks.transition(c.id, ['waiting'], 'starting', { runner_id: runner.id, node_id: null, start: now }))) continue;
      const task = (await this.d.tasks.findById(c.id))!;
      this.publish(task, 'starting');
      claimed.push(task);
    }
    return claimed;
  }

  /** The job package, or null when the task cannot run (it is failed with the reason in its log). */
  private async jobFor(runner: RunnerRow, task: TaskRow): Promise<RunnerJob | null> {
    try {
      const ctx = await this.d.loadContext(task);
      this.secrets.set(task.id, ordered(ctx.secrets));
      const app = await this.d.apps.find(ctx.template.app);
      if (!app) throw new Error(`App ${ctx.template.app} not found`);
      if (!app.active) throw new Error(`App ${app.title} is not active`);
      return {
        task_id: task.id,
        project_id: task.project_id,
        template_id: task.template_id,
        app: { id: app.id, title: app.title, path: app.path, args: app.args },
        sealed: sealTo(runner.public_key, JSON.stringify(ctx)),
      };
    } catch (e) {
      const now = this.d.clock.now().toISOString();
      await this.d.tasks.appendOutput([{ task_id: task.id, seq: 1, time: now, output: `Error: ${(e as Error).message}` }]);
      await this.finish(task, 'error');
      return null;
    }
  }

  /** What the console asked of the tasks the runner says it runs. */
  private async controlFor(runner: RunnerRow, running: number[]): Promise<RunnerControl[]> {
    const out: RunnerControl[] = [];
    const known = await this.d.runners.tasksOf(runner.id, running);
    for (const id of running) {
      const t = known.find((k) => k.id === id);
      // Not this runner's (any more), or already finished (failed by the timeout, stopped while waiting): stop it.
      if (!t || FINISHED_STATUSES.includes(t.status)) out.push({ task_id: id, action: t?.status === 'rejected' ? 'reject' : 'stop' });
      else if (t.status === 'stopping') out.push({ task_id: id, action: t.stop_force === 1 ? 'kill' : 'stop' });
      else if (t.status === 'confirmed') out.push({ task_id: id, action: 'confirm' });
    }
    return out;
  }

  /** Stores the final status; false when the task had ended already (nothing is stored then). */
  private async finish(task: TaskRow, status: 'success' | 'error' | 'stopped' | 'rejected'): Promise<boolean> {
    const end = this.d.clock.now().toISOString();
    const moved = await this.d.tasks.transition(task.id, REMOTE_ACTIVE, status, { end, runner_reported: 1 });
    // A rejection is stored by the console; the runner's report then ends the run, once.
    const ended = moved || (await this.d.runners.closeRejected(task.id));
    this.secrets.delete(task.id);
    if (!ended) return false;
    const final = (await this.d.tasks.findById(task.id))!;
    this.publish(final, final.status);
    await this.d.onFinished(final);
    return true;
  }

  private async ownTask(runner: RunnerRow, taskId: number): Promise<TaskRow> {
    const task = await this.d.tasks.findById(taskId);
    if (!task || task.runner_id !== runner.id) throw new NotFoundError('Task not found', { code: ErrorCodes.taskNotFound });
    return task;
  }

  /**
   * The runner's own task, still taking its reports: not final, or rejected by the console with
   * the runner's last lines and final report still to come.
   */
  private async openTask(runner: RunnerRow, taskId: number): Promise<TaskRow> {
    const task = await this.ownTask(runner, taskId);
    const awaitingRunner = task.status === 'rejected' && task.runner_reported === 0;
    if (isFinished(task.status) && !awaitingRunner) throw new ConflictError(TASK_FINISHED, { code: ErrorCodes.taskFinished });
    return task;
  }

  private async secretsOf(task: TaskRow): Promise<string[]> {
    let s = this.secrets.get(task.id);
    if (!s) {
      s = await this.d.loadContext(task)
        .then((c) => ordered(c.secrets))
        .catch(() => []);
      if (!FINISHED_STATUSES.includes(task.status)) this.secrets.set(task.id, s);
    }
    return s;
  }

  private publish(task: TaskRow, status: string): void {
    this.d.bus.publish(taskUpdateFrame({ ...task, status }));
  }
}

/** Longest first, so a secret that contains another is masked whole. */
function ordered(secrets: string[]): string[] {
  return [...new Set(secrets.filter((s) => s.length >= 3))].sort((a, b) => b.length - a.length);
}

function validTime(t: string): string | null {
  const ms = Date.parse(t);
  return Number.isNaN(ms) ? null : new Date(ms).toISOString();
}
