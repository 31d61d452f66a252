import {
  FINISHED_STATUSES,
  TASK_OUTPUT_MAX_BYTES,
  isFinished,
  type RunnerControl,
  type RunnerJob,
  type RunnerLogBody,
  type RunnerPollResponse,
  type RunnerStatusBody,
  type RunnerTerraformBody,
  type PlanSummary,
  ErrorCodes,
} from '@gantry/contracts';
import type { App } from '@gantry/contracts';
import { maskSecrets } from '../../platform/mask-secrets.js';
import type { RunContext } from '../../engine/ports.js';
import type { Clock } from '../../platform/clock.js';
import { sealTo } from '../../platform/envelope.js';
import { ConflictError, NotFoundError, ValidationError } from '../../platform/errors.js';
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
  /** A runner's plan summary of its task (terraform-plans stores it). */
  onPlanSummary?(task: TaskRow, summary: PlanSummary): Promise<void>;
  /** A runner's drift check finding of its task. */
  onDrift?(
    task: TaskRow,
    result: { drifted: boolean; summary: PlanSummary | null; refreshOnly: boolean },
  ): Promise<void>;
}

/** Claims go at most this far in one poll even for an unlimited runner. */
const CLAIM_BATCH = 10;
const REMOTE_ACTIVE = ['starting', 'running', 'stopping', 'confirmed', 'waiting_confirmation'];
/**
 * A task claimed this recently is not failed for missing from a runner's report: the answer that
 * carried it may still be on its way (a poll the runner gave up on while a server still claimed).
 */
export const CLAIM_GRACE_MS = 5_000;
/** The answer to a runner's log or status for a task that has ended (409). */
export const TASK_FINISHED = 'The task has already finished';
/** The line of a task its runner no longer runs (the runner restarted, or lost it). */
export const NOT_HELD_FAILED = 'The runner no longer runs this task (it restarted?); the task was failed.';
/** The same for a task being stopped: the stop is done. */
export const NOT_HELD_STOPPED = 'The runner no longer runs this task (it restarted?); the task was stopped.';
/** A force stop does not wait for the runner, which may never call again. */
export const FORCE_STOPPED =
  'Force stopped: the task was ended without waiting for its runner (the runner kills it if it still runs it).';
/** A stop of a task whose runner was deleted: no runner will ever report on it. */
export const RUNNER_DELETED = 'The runner of this task was deleted; the task was stopped.';

/**
 * The server side of the runner protocol: heartbeat and claim (poll), job packages sealed to the
 * runner's public key, log lines and status reports for tasks that runner claimed, and the
 * checks that end tasks of runners that stopped calling or no longer run them. Everything lives
 * in the database, so any server node may answer any runner.
 */
export class RunnerProtocolService {
  /** Secrets to mask per task; rebuilt from the database when missing (another node, a restart). */
  private readonly secrets = new Map<number, string[]>();

  constructor(private readonly d: RunnerProtocolDeps) {}

  /**
   * `running`: the tasks the runner runs now. Those the database gives it beyond these are ended
   * before anything is claimed, so their slots serve this poll's claim.
   */
  async poll(runner: RunnerRow, running: number[]): Promise<RunnerPollResponse> {
    const now = this.d.clock.now().toISOString();
    await this.d.runners.update(runner.id, { touched: now });
    await this.endUnheld(runner, running);
    const control = await this.controlFor(runner, running);
    const clearCache = runner.cleaning_requested === 1 && (await this.d.runners.takeCleaning(runner.id));
    const jobs: RunnerJob[] = [];
    if (this.d.enabled && runner.active === 1) {
      for (const task of await this.claim(runner, now, new Set(running).size)) {
        const job = await this.jobFor(runner, task);
        if (job) jobs.push(job);
      }
    }
    return { jobs, control, clear_cache: clearCache };
  }

  /**
   * Stored, masked and published like the lines of a local run; none once the task ended. Lines
   * already stored (a batch sent again after a lost answer) are skipped.
   */
  async log(runner: RunnerRow, taskId: number, body: RunnerLogBody): Promise<void> {
    const task = await this.openTask(runner, taskId);
    const secrets = await this.secretsOf(task);
    const now = this.d.clock.now().toISOString();
    const lines = body.lines.map((l) => ({
      seq: l.seq,
      time: validTime(l.time) ?? now,
      output: maskSecrets(l.output, secrets),
    }));
    const stored = await this.d.runners.log.append(runner.id, taskId, lines);
    // Ended since the check above (the timeout, a force stop): nothing was stored.
    if (!stored) throw new ConflictError(TASK_FINISHED, { code: ErrorCodes.taskFinished });
    if (stored.length) this.d.bus.publishLines({ project_id: task.project_id, task_id: taskId, lines: stored });
  }

  /**
   * A status reported by the runner; moves only the runner's own tasks, along the same paths as
   * local runs. A task that has ended takes no more reports (409).
   */
  async status(runner: RunnerRow, taskId: number, body: RunnerStatusBody): Promise<void> {
    const task = await this.openTask(runner, taskId);
    if (body.commit_hash)
      await this.d.tasks.update(taskId, {
        commit_hash: body.commit_hash,
        commit_message: (body.commit_message ?? '').slice(0, 200),
      });
    switch (body.status) {
      case 'running':
        if (await this.d.tasks.transition(taskId, ['starting', 'confirmed', 'waiting_confirmation'], 'running'))
          this.publish(task, 'running');
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
        if (!(await this.finish(task, body.status, outputOf(body.output))))
          throw new ConflictError(TASK_FINISHED, { code: ErrorCodes.taskFinished });
    }
  }

  /** A plan summary or a drift finding of the runner's own task, while it runs (409 once it ended). */
  async terraform(runner: RunnerRow, taskId: number, body: RunnerTerraformBody): Promise<void> {
    const task = await this.openTask(runner, taskId);
    if (body.plan_summary) await this.d.onPlanSummary?.(task, body.plan_summary);
    if (body.drift)
      await this.d.onDrift?.(task, {
        drifted: body.drift.drifted,
        summary: body.drift.summary,
        refreshOnly: body.drift.refresh_only,
      });
  }

  /**
   * Fails the tasks of runners silent for longer than the timeout (or deleted); a task being
   * stopped is stopped. Answers how many.
   */
  async failSilent(): Promise<number> {
    const cutoff = new Date(this.d.clock.now().getTime() - this.d.timeoutMs).toISOString();
    const seconds = Math.round(this.d.timeoutMs / 1000);
    let ended = 0;
    for (const t of await this.d.runners.silentTasks(cutoff)) {
      const stopping = t.status === 'stopping';
      const line = `Runner #${t.runner_id} stopped responding (no contact for ${seconds} s); the task was ${stopping ? 'stopped' : 'failed'}.`;
      if (await this.endWithLine(t, stopping ? 'stopped' : 'error', line)) ended++;
    }
    return ended;
  }

  /**
   * A stop asked from the console (the task is `stopping` now). The runner's next poll stops it,
   * or says it no longer runs it; a force stop does not wait for that (the runner may be gone for
   * good), nor does any stop of a task whose runner was deleted.
   */
  async stopRequested(taskId: number, force: boolean): Promise<void> {
    const task = await this.d.tasks.findById(taskId);
    if (!task || task.runner_id === null || task.status !== 'stopping') return;
    const runner = await this.d.runners.find(task.runner_id);
    if (runner && !force) return;
    await this.endWithLine(task, 'stopped', runner ? FORCE_STOPPED : RUNNER_DELETED);
  }

  /**
   * Ends the tasks the database says the runner holds but the runner does not report running: it
   * restarted, or lost them. Their runs are gone, so they fail (a task being stopped is stopped),
   * and their slots are free again.
   */
  private async endUnheld(runner: RunnerRow, running: number[]): Promise<void> {
    const reported = new Set(running);
    const graceStart = this.d.clock.now().getTime() - CLAIM_GRACE_MS;
    for (const t of await this.d.runners.held(runner.id)) {
      if (reported.has(t.id)) continue;
      // Final already: only the runner's last report was awaited, and it will not come.
      if (t.status === 'rejected') {
        if (await this.d.runners.closeRejected(t.id)) await this.announceEnd(t.id);
        continue;
      }
      if (t.start && Date.parse(t.start) > graceStart) continue;
      if (t.status === 'stopping') await this.endWithLine(t, 'stopped', NOT_HELD_STOPPED);
      else await this.endWithLine(t, 'error', NOT_HELD_FAILED);
    }
  }

  /**
   * Ends a runner's task from the server, with a line saying why after the last stored one. The
   * conditional update is the claim: with several server nodes only one ends it.
   */
  private async endWithLine(
    t: { id: number; project_id: number; status: string },
    to: 'error' | 'stopped',
    output: string,
  ): Promise<boolean> {
    const line = await this.d.runners.log.end(t.id, t.status, to, this.d.clock.now().toISOString(), output);
    if (!line) return false;
    this.d.bus.publishLines({ project_id: t.project_id, task_id: t.id, lines: [line] });
    await this.announceEnd(t.id);
    return true;
  }

  /** Tells the console and the rest of the server (events, notifications) that a task ended. */
  private async announceEnd(taskId: number): Promise<void> {
    this.secrets.delete(taskId);
    const final = await this.d.tasks.findById(taskId);
    if (!final) return;
    this.publish(final, final.status);
    await this.d.onFinished(final).catch(() => undefined);
  }

  /** `reported`: how many runs the runner says it has (some may be ended here already and still winding down there). */
  private async claim(runner: RunnerRow, now: string, reported: number): Promise<TaskRow[]> {
    const running = Math.max(await this.d.runners.countRunning(runner.id), reported);
    const slots =
      runner.max_parallel_tasks > 0 ? Math.min(runner.max_parallel_tasks - running, CLAIM_BATCH) : CLAIM_BATCH;
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
      if (
        !(await this.d.tasks.transition(c.id, ['waiting'], 'starting', {
          runner_id: runner.id,
          node_id: null,
          start: now,
        }))
      )
        continue;
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
      await this.d.tasks.appendOutput([
        { task_id: task.id, seq: 1, time: now, output: `Error: ${(e as Error).message}` },
      ]);
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
      if (!t || FINISHED_STATUSES.includes(t.status))
        out.push({ task_id: id, action: t?.status === 'rejected' ? 'reject' : t?.stop_force === 1 ? 'kill' : 'stop' });
      else if (t.status === 'stopping') out.push({ task_id: id, action: t.stop_force === 1 ? 'kill' : 'stop' });
      else if (t.status === 'confirmed') out.push({ task_id: id, action: 'confirm' });
    }
    return out;
  }

  /** Stores the final status; false when the task had ended already (nothing is stored then). */
  private async finish(
    task: TaskRow,
    status: 'success' | 'error' | 'stopped' | 'rejected',
    output: string | null = null,
  ): Promise<boolean> {
    const end = this.d.clock.now().toISOString();
    // The output is stored with the final status, as a local run's is.
    const moved = await this.d.tasks.transition(
      task.id,
      REMOTE_ACTIVE,
      status,
      output === null ? { end, runner_reported: 1 } : { end, runner_reported: 1, output },
    );
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
    if (!task || task.runner_id !== runner.id)
      throw new NotFoundError('Task not found', { code: ErrorCodes.taskNotFound });
    return task;
  }

  /**
   * The runner's own task, still taking its reports: not final, or rejected by the console with
   * the runner's last lines and final report still to come.
   */
  private async openTask(runner: RunnerRow, taskId: number): Promise<TaskRow> {
    const task = await this.ownTask(runner, taskId);
    const awaitingRunner = task.status === 'rejected' && task.runner_reported === 0;
    if (isFinished(task.status) && !awaitingRunner)
      throw new ConflictError(TASK_FINISHED, { code: ErrorCodes.taskFinished });
    return task;
  }

  private async secretsOf(task: TaskRow): Promise<string[]> {
    let s = this.secrets.get(task.id);
    if (!s) {
      s = await this.d
        .loadContext(task)
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

/**
 * A runner's output text, checked again as the runner did (a JSON object within the size the
 * schema allows): anything else is refused (400), never stored.
 */
function outputOf(text: string | undefined): string | null {
  if (text === undefined) return null;
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    v = null;
  }
  if (!v || typeof v !== 'object' || Array.isArray(v) || Buffer.byteLength(text) > TASK_OUTPUT_MAX_BYTES)
    throw new ValidationError('The output must be a JSON object of at most 1 MiB', {
      code: ErrorCodes.invalidValue,
      field: 'output',
    });
  return JSON.stringify(v);
}

/** Longest first, so a secret that contains another is masked whole. */
function ordered(secrets: string[]): string[] {
  return [...new Set(secrets.filter((s) => s.length >= 3))].sort((a, b) => b.length - a.length);
}

function validTime(t: string): string | null {
  const ms = Date.parse(t);
  return Number.isNaN(ms) ? null : new Date(ms).toISOString();
}
