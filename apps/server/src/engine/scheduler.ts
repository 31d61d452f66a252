import path from 'node:path';
import type { Clock } from '../platform/clock.js';
import { latestDue } from '../platform/cron.js';
import type { LocalPathCheck } from '../platform/local-paths.js';
import type { RepositorySource, ScheduleRecord, ScheduleStore, SecretSource } from './ports.js';
import { Git } from './git.js';
import { gitEnvironment } from './git-credentials.js';
import type { ProcessLauncher } from './process.js';
import type { TaskIdentity } from './task-user.js';
import { Workspace } from './workspace.js';

export interface SchedulerDeps {
  schedules: ScheduleStore;
  repositories: { get(projectId: number, id: number): Promise<RepositorySource> };
  keys: SecretSource;
  launcher: ProcessLauncher;
  clock: Clock;
  workRoot: string;
  /** A root server's task user: owns the check's workspace, where its sandboxed ssh-agent lives. */
  taskOwner?: TaskIdentity | null;
  knownHostsDir: string;
  systemPath: string;
  /** GANTRY_ALLOWED_LOCAL_PATHS: a refused repository is never read, not even by `git ls-remote`. */
  localPaths: LocalPathCheck;
  /** Starts the schedule's template (commitHash for "run on new commit"). */
  fire(schedule: ScheduleRecord, commitHash: string | null): Promise<void>;
  /** Starts a run of the schedule's workflow (a schedule with a workflow_id). */
  fireWorkflow(schedule: ScheduleRecord & { workflow_id: number }): Promise<void>;
  /** Says why a schedule could not run; awaited, so a tick has recorded it once it returns. */
  onError(schedule: ScheduleRecord, err: unknown): void | Promise<void>;
}

/**
 * Fires schedules in UTC. Each due time is claimed in the database first (last_fired moves
 * forward atomically), so it fires exactly once however many servers share the database and
 * however often they restart. A schedule with a repository is a "run on new commit" check: at
 * each due time it reads the branch head with `git ls-remote` and starts the template only when
 * the commit changed since the last check. A workflow's schedule starts a run of the workflow,
 * claimed the same way, so a due time starts one run across the cluster.
 */
export class Scheduler {
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(private readonly d: SchedulerDeps) {}

  start(): void {
    this.stopped = false;
    this.arm();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  /** One pass at `now`; public so tests (and a start-up catch-up) can drive it. */
  async tick(now: Date = this.d.clock.now()): Promise<number> {
    let fired = 0;
    for (const s of await this.d.schedules.allActive()) {
      try {
        const since = new Date(Math.max(Date.parse(s.active_since), s.last_fired ? Date.parse(s.last_fired) : 0));
        const due = latestDue(s.cron_format, since, now);
        if (!due || !(await this.d.schedules.claim(s.id, due.toISOString()))) continue;
        if (s.workflow_id !== null) {
          // Workflows have no "run on new commit" (the API refuses a repository with one).
          await this.d.fireWorkflow({ ...s, workflow_id: s.workflow_id });
        } else if (s.repository_id) {
          const head = await this.head(s.project_id, s.repository_id);
          if (!head || head === s.last_commit_hash) continue;
          if (!(await this.d.schedules.setCommit(s.id, s.last_commit_hash, head))) continue;
          // The first check only learns where the branch is.
          if (s.last_commit_hash === null) continue;
          await this.d.fire(s, head);
        } else {
          await this.d.fire(s, null);
        }
        fired += 1;
      } catch (e) {
        await this.d.onError(s, e);
      }
    }
    return fired;
  }

  private arm(): void {
    if (this.stopped) return;
    const now = this.d.clock.now().getTime();
    // Cron's finest unit is the minute: wake just after each minute starts.
    const wait = 60_000 - (now % 60_000) + 200;
    this.timer = setTimeout(() => {
      void this.tick().finally(() => this.arm());
    }, wait);
    this.timer.unref();
  }

  private async head(projectId: number, repositoryId: number): Promise<string | null> {
    const repo = await this.d.repositories.get(projectId, repositoryId);
    const problem = this.d.localPaths.repositoryProblem(repo.git_url);
    if (problem) throw new Error(problem);
    const key = await this.d.keys.secretOf(projectId, repo.ssh_key_id);
    const ws = new Workspace(
      this.d.workRoot,
      `ls-remote-${repositoryId}-${Date.now()}-${Math.random().toString(36).slice(2)}`,
      this.d.taskOwner ?? null,
    );
    const access = await gitEnvironment(
      ws,
      'check',
      key,
      path.join(this.d.knownHostsDir, `project_${projectId}`),
      this.d.launcher,
      this.d.systemPath,
    );
    try {
      return await new Git(this.d.launcher, () => undefined).remoteHead(
        repo.git_url,
        repo.git_url.startsWith('/') ? null : repo.git_branch || null,
        ws.dir,
        access.env,
      );
    } finally {
      access.stop();
      ws.dispose();
    }
  }
}
