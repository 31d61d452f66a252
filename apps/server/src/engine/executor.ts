import fs from 'node:fs';
import path from 'node:path';
import {
  DEBUG_LEVEL_DEFAULT,
  TASK_OUTPUT_ENV,
  WORKFLOW_INPUTS_ENV,
  WORKFLOW_INPUTS_VAR,
  type App,
  type PlanSummary,
} from '@gantry/contracts';
import { ansibleArgv } from './apps/ansible.js';
import { scriptArgv } from './apps/scripts.js';
import { unsafeExtraVarsYaml } from './apps/unsafe-yaml.js';
import { projectScope, type CheckoutCache } from './checkout-cache.js';
import { Git } from './git.js';
import { gitEnvironment } from './git-credentials.js';
import { mergeKnownHosts, readKnownHosts } from './known-hosts.js';
import type { ProcessLauncher, RunningProcess } from './process.js';
import type { RepoWithKey, RunContext } from './run-context.js';
import { realDirInside } from './safe-fs.js';
import type { TaskSandbox } from './sandbox.js';
import { inventoryFileName, lexists, localInventoryPaths } from './inventory-list.js';
import type { RunInventory } from './run-inventories.js';
import { Rejected, Stopped } from './run-errors.js';
import { prepareSsh, type SshAccess } from './ssh.js';
import { semaphoreVars, taskDetailsEnv } from './task-details.js';
import { checkUntrustedVars, scalarEnv, userEnvironment } from './task-env.js';
import { INPUTS_ENV_MAX_BYTES, INPUTS_FILE_ENV, OUTPUT_FILE, readTaskOutput, TaskOutputError } from './task-outputs.js';
import type { TaskIdentity } from './task-user.js';
import type { WorkspaceState } from './terraform-state.js';
import { runTerraform, type TerraformIo } from './terraform-run.js';
import { Workspace } from './workspace.js';
import type { OutputFlow } from './log-sink.js';

/** What the executor needs of the machine it runs on (the server, or a remote runner). */
export interface ExecutorDeps {
  launcher: ProcessLauncher;
  workRoot: string;
  knownHostsDir: string;
  /** Checkouts kept for runs of repositories whose refs have not moved (none: every run clones). */
  checkoutCache?: CheckoutCache;
  /** Local-backend state kept between runs; `workDir` is a real folder path. Notes are for the task's log. */
  terraformState: {
    restore(templateId: number, workDir: string, owner?: TaskIdentity | null): string[];
    save(templateId: number, workDir: string): string[];
    readState(workDir: string, rel: string): WorkspaceState;
    /** A hash of the template's kept state ('' when none): a saved plan is applied only while it holds. */
    fingerprint?(templateId: number): string;
  };
  systemPath: string;
  /**
   * The sandbox the launcher applies; an unsandboxed run says so on its first log line. Its task
   * user owns the workspace; with its own network, the Terraform backend is relayed to the task.
   */
  sandbox: Pick<TaskSandbox, 'warning'> & Partial<Pick<TaskSandbox, 'taskOwner' | 'isolatesNetwork' | 'active'>>;
  /** How this machine's task processes reach the Gantry server (for its Terraform HTTP state backend). */
  serverUrl?: () => string | null;
}

/** Where a run reports to: the database and bus (local) or the server over HTTP (remote runner). */
export interface ExecutionHost {
  log(line: string): void;
  /** Gantry's own line (kept past the log's line cap); `log` when absent. */
  note?(line: string): void;
  /** Pauses the processes' output while the log cannot keep up. */
  flow?: OutputFlow;
  /** Moves the task from one of `from` to `to` once the log so far is stored; answers whether it moved. */
  setStatus(from: string[], to: string): Promise<boolean>;
  commit(hash: string, message: string): Promise<void>;
  /** The task now waits for confirmation (notifications); must not throw. */
  onWaitingConfirmation?(): void;
  /** A repository file inventory was read (error null) or could not be (why); must not throw. */
  onInventoryRead?(inventoryId: number, error: string | null): void;
  /** A terraform/tofu apply changed the selected workspace's state (its JSON text); must not throw. */
  onTerraformState?(state: string): void;
  /**
   * A terraform/tofu plan was summarised from `show -json` (with the template's policy verdict in
   * `summary.policy`). Stored before confirmation is offered, so whoever sees the task waiting sees
   * its plan; must not throw.
   */
  onPlanSummary?(summary: PlanSummary): Promise<void>;
  /** A drift check (`params.drift_check`) ended its plan: what it found; must not throw. */
  onDrift?(result: DriftResult): Promise<void>;
}

/** What a drift check found: `drifted` when `plan -detailed-exitcode` exited 2. */
export interface DriftResult {
  drifted: boolean;
  /** The plan's changes (null when the summary could not be made). */
  summary: PlanSummary | null;
  refreshOnly: boolean;
}

/** The app settings a run uses (from the apps service, or from the job package on a runner). */
export type ExecutableApp = Pick<App, 'id' | 'title' | 'path' | 'args'>;

export type ControlAction = 'confirm' | 'reject' | 'stop' | 'kill';

// Kept in their own module so terraform-run.ts throws them without importing the executor.
export { Rejected, Stopped };

export interface ExecOptions {
  /** Exit codes that are not a failure (default: 0 only); 'any': the caller reads the code. */
  ok?: readonly number[] | 'any';
  /** Stdout unsplit, kept from the log (stderr is still logged). */
  capture?: (chunk: string) => void;
  /** Sees every logged line first. */
  watch?: (line: string) => void;
}

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

    // The engine's own variables come last: user names were checked, and these win regardless.
    const env: Record<string, string> = {
      LANG: 'C.UTF-8',
      ...userEnv,
      PATH: this.d.systemPath,
      HOME: ws.home,
      ...taskDetailsEnv(ctx.taskDetails),
      GANTRY_TASK_ID: String(ctx.task.id),
      GANTRY_PROJECT_ID: String(ctx.task.project_id),
      GANTRY_TEMPLATE_ID: String(ctx.task.template_id),
      // Where the task may leave its output object (its own workspace, the one place it may write).
      [TASK_OUTPUT_ENV]: path.join(ws.dir, OUTPUT_FILE),
    };
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
        return this.runAnsible(ctx, ws, repoDir, env, knownHosts, app.path);
      case 'terraform':
      case 'tofu':
        return runTerraform(this.terraformIo(ctx, ws), ctx, ws, repoDir, env, app.path);
      default: {
        // Built-in script apps and custom apps: the app's own arguments, then the script and its arguments.
        const vars = { ...ctx.trustedVars, ...ctx.untrustedVars };
        // Variables as environment variables keep to the same name rules, so none replaces PATH, HOME or GANTRY_*.
        const scriptEnv = {
          ...env,
          ...scalarEnv(ctx.trustedVars, ctx.untrustedVars),
          GANTRY_EXTRA_VARS: JSON.stringify(vars),
          ...this.inputsEnv(ctx, ws, WORKFLOW_INPUTS_ENV),
        };
        const cwd = id === 'pulumi' ? inside(repoDir, ctx.template.playbook || '.') : repoDir;
        const script = id === 'pulumi' ? '' : inside(repoDir, ctx.template.playbook);
        const argv =
          id === 'bash' || id === 'python' || id === 'powershell' || id === 'pulumi'
            ? scriptArgv(id, script, ctx.args)
            : [script, ...ctx.args];
        await this.exec(app.path, [...app.args, ...argv], cwd, scriptEnv);
        return;
      }
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

  private async runAnsible(
    ctx: RunContext,
    ws: Workspace,
    repoDir: string,
    env: Record<string, string>,
    knownHosts: string,
    exe: string,
  ): Promise<void> {
    const inventoryFiles: string[] = [];
    for (const [i, inv] of runInventories(ctx).entries())
      inventoryFiles.push(await this.inventoryFile(ws, repoDir, knownHosts, inv, i));
    const extra: Record<string, unknown> = { ...ctx.trustedVars };
    let login: string | null = null;
    let privateKeyFile: string | null = null;
    let sshCommonArgs: string[] = ['-o', 'StrictHostKeyChecking=accept-new', '-o', `UserKnownHostsFile=${knownHosts}`];
    if (ctx.inventoryKey?.type === 'ssh') {
      const ssh = await this.ssh(ws, 'inventory', ctx.inventoryKey, knownHosts);
      Object.assign(env, ssh.env);
      privateKeyFile = ssh.keyFile;
      login = ssh.login || null;
      sshCommonArgs = ssh.sshArgs.filter((a, i, all) => a !== '-i' && all[i - 1] !== '-i');
    } else if (ctx.inventoryKey?.type === 'login_password') {
      login = ctx.inventoryKey.login || null;
      extra.ansible_password = ctx.inventoryKey.password;
    }
    let becomePasswordFile: string | null = null;
    if (ctx.becomeKey?.type === 'login_password') {
      becomePasswordFile = ws.writeSecretFile('become.pass', ctx.becomeKey.password + '\n');
      if (ctx.becomeKey.login) extra.ansible_become_user = ctx.becomeKey.login;
    }
    const vaults = ctx.vaults.map((v, i) => ({
      name: v.name,
      source:
        v.type === 'password'
          ? ws.writeSecretFile(`vault-${i}.pass`, (v.password ?? '') + '\n')
          : inside(repoDir, v.script ?? ''),
    }));
    const tp = ctx.templateParams;
    const p = ctx.params;
    const argv = ansibleArgv({
      playbook: inside(repoDir, ctx.template.playbook),
      inventoryFiles,
      login,
      privateKeyFile,
      becomePasswordFile,
      vaults,
      // Whether the task may debug was decided when its run was loaded (template, author's role).
      verbosity: p.debug ? (p.debug_level ?? DEBUG_LEVEL_DEFAULT) : null,
      check: !!p.dry_run,
      diff: !!p.diff,
      limit: p.limit?.length ? p.limit : tp.limit,
      tags: p.tags?.length ? p.tags : tp.tags,
      skipTags: p.skip_tags?.length ? p.skip_tags : tp.skip_tags,
      extraVarsFile: Object.keys(extra).length ? ws.writeSecretFile('extra-vars.json', JSON.stringify(extra)) : null,
      // Earlier nodes' outputs are task data too (every string `!unsafe`), under a name of the engine's own.
      untrustedVarsFile: ws.writeSecretFile(
        'task-vars.yml',
        unsafeExtraVarsYaml({
          ...ctx.untrustedVars,
          ...semaphoreVars(ctx.taskDetails),
          ...(ctx.inputs ? { [WORKFLOW_INPUTS_VAR]: ctx.inputs } : {}),
        }),
      ),
      sshCommonArgs,
      templateArgs: [],
      taskArgs: ctx.args,
    });
    // Unsandboxed, a root server's task user has no home of its own (nobody's is /nonexistent),
    // where a local connection puts its temp files: a /tmp path instead, as Ansible advises.
    const homeless: Record<string, string> =
      this.d.sandbox.taskOwner && this.d.sandbox.active === false
        ? { ANSIBLE_REMOTE_TMP: '/tmp/.ansible-gantry-${USER}' }
        : {};
    await this.exec(exe, argv, repoDir, {
      ...env,
      ...homeless,
      ANSIBLE_FORCE_COLOR: '1',
      ANSIBLE_NOCOLOR: '0',
      PYTHONUNBUFFERED: '1',
      ANSIBLE_LOCAL_TEMP: ws.path('home', '.ansible-tmp'),
    });
  }

  /**
   * Materialises one inventory of the run as a file for `-i`: texts (a URL's fetched text too)
   * written to the workspace, INI or YAML by their content; a repository file checked out at its
   * branch (the first keeps the older folder name); an absolute path read where it is.
   */
  private async inventoryFile(
    ws: Workspace,
    repoDir: string,
    knownHosts: string,
    inv: RunInventory,
    i: number,
  ): Promise<string> {
    const n = i === 0 ? '' : `-${i}`;
    if (inv.type === 'static') return ws.writeSecretFile(`inventory${n}.ini`, inv.inventory + '\n');
    if (inv.type === 'static-yaml') return ws.writeSecretFile(`inventory${n}.yml`, inv.inventory + '\n');
    if (inv.type === 'url') {
      const name = inventoryFileName(inv.inventory).replace('inventory', `inventory${n}`);
      return ws.writeSecretFile(name, inv.inventory + '\n');
    }
    // An absolute path was checked against GANTRY_ALLOWED_LOCAL_PATHS when the run was loaded.
    if (path.isAbsolute(inv.inventory)) {
      this.readable.push(...localInventoryPaths(inv.inventory));
      return inv.inventory;
    }
    try {
      let base = repoDir;
      if (inv.repository) {
        base = ws.path(`inventory-repository${n}`);
        await this.checkout(ws, inv.repository, base, inv.branch, null, knownHosts, `inventory${n}`);
        this.host.log(
          `Inventory ${inv.inventory} read from ${inv.repository.row.git_url}${inv.branch ? ` (${inv.branch})` : ''}`,
        );
      }
      const file = inside(base, inv.inventory);
      if (!lexists(file))
        throw new Error(
          `Inventory ${inv.inventory} is not in the repository${inv.branch ? ` at branch ${inv.branch}` : ''}`,
        );
      this.host.onInventoryRead?.(inv.id, null);
      return file;
    } catch (e) {
      this.host.onInventoryRead?.(inv.id, (e as Error).message);
      throw e;
    }
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
    this.ws?.handOver();
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

/**
 * A path inside a checkout; refuses anything that would climb out of it. Lexical only: for paths
 * handed to a sandboxed process, which the sandbox confines. Paths the server itself opens go
 * through safe-fs (realDirInside, safeReadFile, safeWriteFile).
 */
export function inside(base: string, rel: string): string {
  const full = path.resolve(base, rel);
  const r = path.relative(base, full);
  if (r.startsWith('..') || path.isAbsolute(r)) throw new Error('Path leaves the repository');
  return full;
}

/**
 * The run's inventories in `-i` order: the list a current server sends, else (a job from an older
 * server) its one inventory, read from its own repository when it has one.
 */
function runInventories(ctx: RunContext): RunInventory[] {
  if (ctx.inventories) return ctx.inventories;
  const inv = ctx.inventory;
  if (!inv || !['static', 'static-yaml', 'file'].includes(inv.type)) return [];
  const repository = inv.type === 'file' ? ctx.inventoryRepository : null;
  return [{ ...inv, repository, branch: repository?.row.git_branch || null }];
}
