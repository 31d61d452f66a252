import fs from 'node:fs';
import path from 'node:path';
import type { RunnerJob } from '@gantry/contracts';
import { CheckoutCache } from '../engine/checkout-cache.js';
import type { ExecutorDeps } from '../engine/executor.js';
import type { Backoff } from '../engine/log-retry-buffer.js';
import { createProcessLauncher } from '../engine/process.js';
import type { TaskSandbox } from '../engine/sandbox.js';
import { spreadTaskFolders } from '../engine/task-dir-spread.js';
import { TerraformStateStore } from '../engine/terraform-state.js';
import { taskWorkspaceStore } from '../engine/workspace.js';
import { RemoteTaskRun } from './remote-run.js';
import type { RunnerServer } from './server-client.js';

export interface RunnerAgentOptions {
  server: RunnerServer;
  privateKey: string;
  workDir: string;
  pollMs: number;
  systemPath: string;
  /** Applied to every app process, with the work folder hidden (runnerTaskSandbox). */
  sandbox: TaskSandbox;
  /** The server's address as this runner reaches it; tasks reach Gantry's Terraform state backend there. */
  serverUrl?: string;
  /** Where the agent reports problems (the server unreachable...); never given secrets. */
  log(message: string): void;
  /** Waits between tries of a status report (tests shorten it). */
  reportBackoff?: Backoff;
  /** Checkouts kept in the work folder's `checkouts` (GANTRY_CHECKOUT_CACHE_ENTRIES; default 32, 0: none). */
  checkoutCacheEntries?: number;
}

/**
 * The runner process: polls the server (heartbeat + claim), runs each job it receives with the
 * shared executor, passes stop/confirm/reject requests to the runs, and empties its work folder
 * when the server asks.
 */
export class RunnerAgent {
  private readonly runs = new Map<number, { run: RemoteTaskRun; done: Promise<void> }>();
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private polling: Promise<void> = Promise.resolve();
  private lastError = '';
  private readonly deps: ExecutorDeps;

  constructor(private readonly o: RunnerAgentOptions) {
    this.deps = {
      launcher: createProcessLauncher(o.sandbox),
      sandbox: o.sandbox,
      workRoot: path.join(o.workDir, 'tasks'),
      knownHostsDir: path.join(o.workDir, 'known_hosts'),
      // In the work folder, which no task sees.
      checkoutCache: CheckoutCache.forNode(path.join(o.workDir, 'checkouts'), o.checkoutCacheEntries ?? 32),
      terraformState: new TerraformStateStore(path.join(o.workDir, 'terraform')),
      systemPath: o.systemPath,
      serverUrl: () => o.serverUrl ?? null,
    };
  }

  /**
   * The tasks this process runs now, each until its final report lands: sent with every poll, so
   * the server ends those it gave this runner and the runner no longer has (after a restart).
   */
  get runningTasks(): number[] {
    return [...this.runs.keys()];
  }

  start(): void {
    fs.mkdirSync(this.o.workDir, { recursive: true, mode: 0o700 });
    // It holds keys and known_hosts: only the runner's user may enter, also when made earlier.
    fs.chmodSync(this.o.workDir, 0o700);
    // Best effort, and it only matters for folders made afterwards: the first poll need not wait.
    void spreadTaskFolders(this.deps.launcher, this.deps.workRoot, this.o.systemPath);
    this.schedule(0);
  }

  /** Stops polling and waits for the runs in progress to end. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.polling;
    await Promise.all([...this.runs.values()].map((r) => r.done));
  }

  /** One poll: heartbeat, control messages, cache clearing, new jobs. */
  async pollOnce(): Promise<void> {
    const answer = await this.o.server.poll(this.runningTasks);
    for (const c of answer.control) this.runs.get(c.task_id)?.run.control(c.action);
    if (answer.clear_cache) await this.clearCache();
    for (const job of answer.jobs) this.startJob(job);
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.polling = this.pollOnce()
        .then(() => {
          if (this.lastError) this.o.log('Connected to the server again');
          this.lastError = '';
        })
        .catch((e: unknown) => {
          const message = (e as Error).message;
          // Said once per kind of failure, not once a second.
          if (message !== this.lastError) this.o.log(`Poll failed: ${message}`);
          this.lastError = message;
        })
        .finally(() => this.schedule(this.o.pollMs));
    }, ms);
  }

  private startJob(job: RunnerJob): void {
    if (this.runs.has(job.task_id)) return;
    const run = new RemoteTaskRun(this.deps, this.o.server, job, this.o.privateKey, this.o.reportBackoff);
    this.o.log(`Task #${job.task_id} (project ${job.project_id}) started`);
    const done = run
      .run()
      .catch(() => undefined)
      .finally(() => {
        this.runs.delete(job.task_id);
        this.o.log(`Task #${job.task_id} ended`);
      });
    this.runs.set(job.task_id, { run, done });
  }

  /** Removes the work folders of tasks that are not running (leftovers of crashed runs) and the kept checkouts. */
  private async clearCache(): Promise<void> {
    const store = taskWorkspaceStore(this.deps.workRoot);
    let removed = 0;
    for (const id of store.taskIds()) {
      if (this.runs.has(id)) continue;
      store.remove(id);
      removed++;
    }
    const checkouts = (await this.deps.checkoutCache?.clear().catch(() => 0)) ?? 0;
    this.o.log(`Cache cleared (${removed} folder(s) and ${checkouts} kept checkout(s) removed)`);
  }
}
