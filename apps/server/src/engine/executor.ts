import fs from 'node:fs';
import path from 'node:path';
import { runAnsible, type AnsibleIo } from './ansible-run.js';
import { projectScope } from './checkout-cache.js';
import type { ControlAction, ExecOptions, ExecutableApp, ExecutionHost, ExecutorDeps } from './executor-types.js';
import { Git } from './git.js';
import { gitEnvironment } from './git-credentials.js';
import { mergeKnownHosts, readKnownHosts } from './known-hosts.js';
import type { RunningProcess } from './process.js';
import type { RepoWithKey, RunContext } from './run-context.js';
import { runEnvironment } from './run-environment.js';
import { Rejected, Stopped } from './run-errors.js';
import { realDirInside } from './safe-fs.js';
import { runScript, type ScriptIo } from './script-run.js';
import { prepareSsh, type SshAccess } from './ssh.js';
import { checkUntrustedVars, userEnvironment } from './task-env.js';
import { INPUTS_ENV_MAX_BYTES, INPUTS_FILE_ENV, readTaskOutput, TaskOutputError } from './task-outputs.js';
import { runTerraform, type TerraformIo } from './terraform-run.js';
import { Workspace } from './workspace.js';

// The executor's dependencies, its host and their types have their own module (executor-types.ts);
// every app's run step its own (ansible-run.ts, terraform-run.ts, script-run.ts).
export type {
  ControlAction,
  DriftResult,
  ExecOptions,
  ExecutableApp,
  ExecutionHost,
  ExecutorDeps,
} from './executor-types.js';
export { inside } from './repo-path.js';

// Kept in their own module so terraform-run.ts throws them without importing the executor.
export { Rejected, Stopped };

/**
 * The execution part of a run, shared by local runs and remote runners: workspace, checkout,
 * keys, the app's command line, processes, confirmation. It knows nothing of the database.
 */
export class TaskExecutor {
  private current: RunningProcess | null = null;
  private stopRequested = false;
  private killRequested = false;
  private confirmation: ((c: 'confirm' | 'reject' | 'stop') => void) | null = null;
  private readonly cleanups: Array<() => void | Promise<void>> = [];
  /** What the run's processes may write in the sandbox: its workspace only. */
  private writable: string[] = [];
  /** What they may read outside it: an absolute file inventory and the variables beside it. */
  private readable: string[] = [];
  private ws: Workspace | null = null;
  /** The run's project: whose cached checkouts it may be given. */
  private cacheScope: string | undefined;
  /** The task's own relay to its Terraform HTTP backend (its own network cannot reach the server). */
  private forward: { socket: string; port: number } | undefined;
  /** The workspace's real path, resolved before any task process ran: where its output file is read. */
  private outputRoot: string | null = null;
  /** The JSON object the task left in the file named by GANTRY_OUTPUT (read once its processes ended); null when none. */
  output: Record<string, unknown> | null = null;

  constructor(
    private readonly d: ExecutorDeps,
    private readonly host: ExecutionHost,
  ) {
    // Runs are built before they log anything: the warning is the first line of the task's log.
    const warning = d.sandbox.warning;
    if (warning) host.log(warning);
  }

  /** A stop, force stop, confirmation or rejection from the console. */
  control(action: ControlAction): void {
    if (action === 'stop' || action === 'kill') {
      this.stopRequested = true;
      if (action === 'kill') this.killRequested = true;
      this.current?.kill(action === 'kill' ? 'SIGKILL' : 'SIGTERM');
      this.confirmation?.('stop');
    } else {
      this.confirmation?.(action);
    }
  }

  /** The final status for what `execute` threw (the error is logged when it is a failure). */
  outcome(e: unknown): 'rejected' | 'stopped' | 'error' {
    if (e instanceof Rejected) return 'rejected';
    if (e instanceof Stopped || this.stopRequested) return 'stopped';
    (this.host.note ?? this.host.log).call(this.host, `Error: ${(e as Error).message}`);
    return 'error';
  }

  /** Removes keys, agents and the workspace; best effort, whatever the outcome. */
  async cleanup(): Promise<void> {
    for (const c of this.cleanups.splice(0).reverse()) {
      try {
        await c();
      } catch {
        // Cleanup is best effort; the workspace removal is the one that matters.
      }
    }
  }

  /** Moves the task on; a stop that came first ends the run. */
  async setStatus(from: string[], to: string): Promise<boolean> {
    if (await this.host.setStatus(from, to)) return true;
    if (this.stopRequested) throw new Stopped();
    return false;
  }

  /** Runs the task's app in a fresh workspace; throws Stopped, Rejected or an Error saying what failed. */
  async execute(ctx: RunContext, app: ExecutableApp): Promise<void> {
    // Checked again here whatever was checked on input: a refused name fails the run before it starts.
    const userEnv = userEnvironment(ctx);
    checkUntrustedVars(ctx.untrustedVars);
    for (const n of ctx.notices ?? []) this.note(n);
    this.cacheScope = projectScope(ctx.task.project_id);
    const ws = await Workspace.create(this.d.workRoot, ctx.task.id, this.d.sandbox.taskOwner ?? null);
    this.ws = ws;
    this.cleanups.push(() => ws.remove());
    // The project's known_hosts is never shared with a task: it gets a copy, and only plain new
    // host-key lines come back when the run ends.
    fs.mkdirSync(this.d.knownHostsDir, { recursive: true, mode: 0o700 });
    const projectKnownHosts = path.join(this.d.knownHostsDir, `project_${ctx.task.project_id}`);
    const knownHosts = ws.writeSecretFile('known_hosts', readKnownHosts(projectKnownHosts));
    this.cleanups.push(() => void mergeKnownHosts(ws.dir, knownHosts, projectKnownHosts));
    this.writable = [ws.dir];
    this.outputRoot = realDirInside(ws.dir, '.');

    const repoDir = ws.path('repository');
    const commit = await this.checkout(
      ws,
      ctx.repository,
      repoDir,
      ctx.branch,
      ctx.task.commit_hash,
      knownHosts,
      'repository',
    );
    await this.host.commit(commit.hash, commit.message.slice(0, 200));
    this.host.log(
      `Checked out ${ctx.repository.row.git_url}${ctx.branch ? ` (${ctx.branch})` : ''} at ${commit.hash.slice(0, 10)}`,
    );

    const env = runEnvironment(ctx, ws, userEnv, this.d.systemPath);
    let ran = false;
    try {
      await this.runApp(ctx, app, ws, repoDir, env, knownHosts);
      ran = true;
    } finally {
      this.collectOutput(ran);
    }
  }

  /**
   * Reads the task's output once its processes have ended, whatever their outcome. A run that
   * succeeded fails when the file is unusable; a failed run keeps its own error (the problem is noted).
   */
  private collectOutput(succeeded: boolean): void {
    if (!this.outputRoot) return;
    try {
      this.output = readTaskOutput(this.outputRoot);
      if (this.output) this.note(`Output: ${Object.keys(this.output).length} key(s) kept from the output file`);
    } catch (e) {
      const message =
        e instanceof TaskOutputError ? e.message : `The output file could not be read: ${(e as Error).message}`;
      if (succeeded) throw new Error(message);
      this.note(message);
    }
  }

  /**
   * Earlier workflow nodes' outputs for scripts and Terraform: always in a file (GANTRY_OUTPUTS_FILE),
   * and as JSON in `name` when small enough for an environment variable.
   */
  private inputsEnv(ctx: RunContext, ws: Workspace, name: string): Record<string, string> {
    if (!ctx.inputs) return {};
    const json = JSON.stringify(ctx.inputs);
    const out: Record<string, string> = { [INPUTS_FILE_ENV]: ws.writeSecretFile('gantry-outputs.json', json) };
    if (Buffer.byteLength(json) <= INPUTS_ENV_MAX_BYTES) out[name] = json;
    else
      this.note(
        `The outputs of earlier nodes are too large for ${name}: read them from the file named by ${INPUTS_FILE_ENV}`,
      );
    return out;
  }

  private async runApp(
    ctx: RunContext,
    app: ExecutableApp,
    ws: Workspace,
    repoDir: string,
    env: Record<string, string>,
    knownHosts: string,
  ): Promise<void> {
    const id = app.id;
    switch (id) {
      case 'ansible':
        return runAnsible(this.ansibleIo(), ctx, ws, repoDir, env, knownHosts, app.path);
      case 'terraform':
      case 'tofu':
        return runTerraform(this.terraformIo(ctx, ws), ctx, ws, repoDir, env, app.path);
      default:
        // Built-in script apps and custom apps.
        return runScript(this.scriptIo(ctx, ws), ctx, app, repoDir, env);
    }
  }

  private async checkout(
    ws: Workspace,
    repo: RepoWithKey,
    dir: string,
    branch: string | null,
    commitHash: string | null,
    knownHosts: string,
    name: string,
  ) {
    const access = await gitEnvironment(ws, name, repo.key, knownHosts, this.d.launcher, this.d.systemPath);
    this.cleanups.push(() => access.stop());
    const git = new Git(this.d.launcher, (l) => this.host.log(l), this.d.checkoutCache);
    return git.checkout({
      cacheScope: this.cacheScope,
      url: repo.row.git_url,
      branch: repo.row.git_url.startsWith('/') ? null : branch,
      commitHash,
      dir,
      cwd: ws.dir,
      env: access.env,
    });
  }

  private async ssh(
    ws: Workspace,
    name: string,
    key: Extract<RunContext['inventoryKey'], { type: 'ssh' }>,
    knownHosts: string,
  ): Promise<SshAccess> {
    const access = await prepareSsh(ws, name, key, knownHosts, this.d.launcher, this.d.systemPath);
    this.cleanups.push(() => access.stop());
    return access;
  }

  /** What an Ansible run (ansible-run.ts) may do through this executor. */
  private ansibleIo(): AnsibleIo {
    return {
      deps: this.d,
      host: this.host,
      exec: (command, args, cwd, env, o) => this.exec(command, args, cwd, env, o),
      ssh: (ws, name, key, knownHosts) => this.ssh(ws, name, key, knownHosts),
      checkout: (ws, repo, dir, branch, commitHash, knownHosts, name) =>
        this.checkout(ws, repo, dir, branch, commitHash, knownHosts, name),
      allowRead: (paths) => void this.readable.push(...paths),
    };
  }

  /** What a script or custom app's run (script-run.ts) may do through this executor. */
  private scriptIo(ctx: RunContext, ws: Workspace): ScriptIo {
    return {
      exec: (command, args, cwd, env, o) => this.exec(command, args, cwd, env, o),
      inputsEnv: (name) => this.inputsEnv(ctx, ws, name),
    };
  }

  /** What a Terraform/OpenTofu run (terraform-run.ts) may do through this executor. */
  private terraformIo(ctx: RunContext, ws: Workspace): TerraformIo {
    return {
      deps: this.d,
      host: this.host,
      exec: (command, args, cwd, env, o) => this.exec(command, args, cwd, env, o),
      note: (line) => this.note(line),
      setStatus: (from, to) => this.setStatus(from, to),
      confirmation: () => this.answer(),
      addCleanup: (cleanup) => void this.cleanups.push(cleanup),
      setForward: (forward) => {
        this.forward = forward;
      },
      inputsEnv: (name) => this.inputsEnv(ctx, ws, name),
    };
  }

  /** Waits for the console's confirm, reject or stop; a stop that came first answers at once. */
  private async answer(): Promise<'confirm' | 'reject' | 'stop'> {
    const answer = await new Promise<'confirm' | 'reject' | 'stop'>((resolve) => {
      this.confirmation = resolve;
      if (this.stopRequested) resolve('stop');
    });
    this.confirmation = null;
    return answer;
  }

  /** Gantry's own line in the task's log. */
  private note(line: string): void {
    (this.host.note ?? this.host.log).call(this.host, line);
  }

  /** Runs one process to its end; an exit code not `ok` fails the task, a stop request stops it. Answers the code. */
  private async exec(
    command: string,
    args: string[],
    cwd: string,
    env: Record<string, string>,
    o: ExecOptions = {},
  ): Promise<number> {
    if (this.stopRequested) throw new Stopped();
    // Every app process runs sandboxed; git and ssh-agent (run by the server itself) do not.
    // Checkouts and earlier steps made files the task user must own; no link is followed.
    await this.ws?.handOver();
    // (A stop that came during the hand-over found no process to end.)
    if (this.stopRequested) throw new Stopped();
    const watch = o.watch;
    this.current = this.d.launcher.start(
      {
        command,
        args,
        cwd,
        env,
        sandbox: { writable: this.writable, readable: this.readable, forward: this.forward },
        ...(o.capture ? { captureStdout: o.capture } : {}),
      },
      watch
        ? (l) => {
            watch(l);
            this.host.log(l);
          }
        : (l) => this.host.log(l),
      this.host.flow,
    );
    if (this.stopRequested) this.current.kill(this.killRequested ? 'SIGKILL' : 'SIGTERM');
    const r = await this.current.done;
    this.current = null;
    if (this.stopRequested) throw new Stopped();
    if (r.spawnError) throw new Error(`${command} could not be started: ${r.spawnError}`);
    const ok = o.ok ?? [0];
    if (r.code === null || (ok !== 'any' && !ok.includes(r.code)))
      throw new Error(`${path.basename(command)} exited with ${r.code ?? r.signal}`);
    return r.code;
  }
}
