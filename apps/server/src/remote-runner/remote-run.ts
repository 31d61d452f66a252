import type { RunnerJob, RunnerStatusBody } from '@gantry/contracts';
import { TaskExecutor, type ControlAction, type ExecutionHost, type ExecutorDeps } from '../engine/executor.js';
import { backoffDelay, type Backoff } from '../engine/log-retry-buffer.js';
import type { RunContext } from '../engine/run-context.js';
import { maskOutput } from '../engine/task-outputs.js';
import { openSealed } from '../platform/envelope.js';
import { lostLinesText, refusedForGood, RemoteLog, taskHasEnded } from './remote-log.js';
import type { RunnerServer } from './server-client.js';

/** Waits between tries of a status report; the final one is tried until the server takes it. */
export const REPORT_BACKOFF: Backoff = { firstMs: 500, maxMs: 10_000 };
/** Tries of a status report during the run (`running`, a commit): past them the run fails. */
const REPORT_TRIES = 5;

/**
 * One job on a runner: the sealed context is opened with the runner's private key and run by the
 * same executor as local runs; log lines and status changes go back to the server over HTTP.
 */
export class RemoteTaskRun {
  private readonly log: RemoteLog;
  private readonly executor: TaskExecutor;

  constructor(
    d: ExecutorDeps,
    private readonly server: RunnerServer,
    private readonly job: RunnerJob,
    private readonly privateKey: string,
    private readonly backoff: Backoff = REPORT_BACKOFF,
  ) {
    // The server ended the task (timeout, a stop it stored): the process is stopped too.
    this.log = new RemoteLog(server, job.task_id, undefined, () => this.executor.control('stop'));
    const host: ExecutionHost = {
      log: (line) => this.log.write(line),
      setStatus: async (_from, to) => {
        await this.log.sync();
        await this.report({ status: to as RunnerStatusBody['status'] });
        return true;
      },
      commit: (hash, message) => this.report({ status: 'running', commit_hash: hash, commit_message: message }),
      // Stored by the server before confirmation is offered (the waiting status is reported after it).
      onPlanSummary: async (summary) => {
        await this.server.terraform?.(job.task_id, { plan_summary: summary }).catch(() => undefined);
      },
      onDrift: async (r) => {
        await this.server
          .terraform?.(job.task_id, { drift: { drifted: r.drifted, summary: r.summary, refresh_only: r.refreshOnly } })
          .catch(() => undefined);
      },
    };
    this.executor = new TaskExecutor(d, host);
  }

  control(action: ControlAction): void {
    this.executor.control(action);
  }

  /** Runs to the end and reports the final status; never throws. */
  async run(): Promise<void> {
    const id = this.job.task_id;
    let status: 'success' | 'error' | 'stopped' | 'rejected' = 'error';
    let secrets: string[] = [];
    try {
      this.log.write(`Task #${id} started on a runner`);
      await this.executor.setStatus(['starting'], 'running');
      const ctx = JSON.parse(openSealed(this.privateKey, this.job.sealed)) as RunContext;
      this.log.setSecrets(ctx.secrets);
      secrets = ctx.secrets;
      await this.executor.execute(ctx, this.job.app);
      status = 'success';
    } catch (e) {
      status = this.executor.outcome(e);
    } finally {
      await this.executor.cleanup();
      // Output that never reached the server leaves no clean success.
      await this.log.sync();
      if (this.log.lost > 0) {
        this.log.write(lostLinesText(this.log.lost, status === 'success'));
        if (status === 'success') status = 'error';
      }
      this.log.write(`Task #${id} finished: ${status}`);
      await this.log.sync();
    }
    // Until it lands: the run stays in the runner's list meanwhile, so the server never takes it for lost.
    // The task's output goes with its final status, as a local run stores it.
    const output = this.executor.output ? JSON.stringify(maskOutput(this.executor.output, secrets)) : undefined;
    await this.report(output === undefined ? { status } : { status, output }, true).catch(() => undefined);
  }

  /** `untilTaken`: retried (with backoff) as long as the server may still take it. */
  private async report(body: RunnerStatusBody, untilTaken = false): Promise<void> {
    for (let failures = 1; ; failures++) {
      try {
        return await this.server.status(this.job.task_id, body);
      } catch (e) {
        // The task has ended on the server: a retry would get the same answer.
        if (taskHasEnded(e)) {
          this.log.end();
          throw e;
        }
        // Not this runner's any more (deleted, or another's), or a report the server never takes.
        if (refusedForGood(e)) throw e;
        if (!untilTaken && failures >= REPORT_TRIES) throw e;
        // A timer that holds the process: a runner asked to stop waits for the report to land.
        await new Promise((r) => setTimeout(r, backoffDelay(this.backoff, failures)));
      }
    }
  }
}
