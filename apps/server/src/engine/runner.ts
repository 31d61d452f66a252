import fs from 'node:fs';
import path from 'node:path';
import { DEBUG_LEVEL_DEFAULT, reservedVariableProblem, type App } from '@gantry/contracts';
import type { Clock } from '../platform/clock.js';
import type { EventBus, TaskControl } from '../realtime/bus.js';
import type { TaskRow, TasksRepository } from '../modules/tasks/tasks.repository.js';
import { ansibleArgv } from './apps/ansible.js';
import { scriptArgv } from './apps/scripts.js';
import { terraformSteps } from './apps/terraform.js';
import { Git } from './git.js';
import { LogSink } from './log-sink.js';
import type { ProcessLauncher, RunningProcess } from './process.js';
import { loadRunContext, type RepoWithKey, type RunContext, type RunContextDeps } from './run-context.js';
import { gitEnvironment } from './git-credentials.js';
import { prepareSsh, type SshAccess } from './ssh.js';
import type { TerraformStateStore } from './terraform-state.js';
import { Workspace } from './workspace.js';

export interface RunnerDeps extends RunContextDeps {
  tasks: TasksRepository;
  bus: EventBus;
  clock: Clock;
  launcher: ProcessLauncher;
  workRoot: string;
  knownHostsDir: string;
  terraformState: TerraformStateStore;
  systemPath: string;
  /** The apps as configured now: read when each task starts, so a change applies to the next one. */
  apps: { find(id: string): Promise<App | null> };
  /** Called once the final status is stored (events, deploy autorun, notifications). */
  onFinished(task: TaskRow): Promise<void>;
  /** Called when a task starts waiting for confirmation (notifications); must not throw. */
  onWaitingConfirmation?(task: TaskRow): void;
}

class Stopped extends Error {}
class Rejected extends Error {}

/** Runs one claimed task from `starting` to its final status; never throws. */
export class TaskRun {
  private current: RunningProcess | null = null;
  private stopRequested = false;
  private killRequested = false;
  private confirmation: ((c: 'confirm' | 'reject' | 'stop') => void) | null = null;
  private readonly cleanups: Array<() => void> = [];
  private log!: LogSink;

  constructor(
    private readonly d: RunnerDeps,
    private readonly task: TaskRow,
  ) {}

  async run(): Promise<void> {
    const unsubscribe = this.d.bus.onControl((c) => this.onControl(c));
    this.log = new LogSink(this.task.id, this.task.project_id, this.d.tasks, this.d.bus, this.d.clock, []);
    let status: 'success' | 'error' | 'stopped' | 'rejected' = 'error';
    try {
      this.log.write(`Task #${this.task.id} started`);
      await this.setStatus(['starting'], 'running');
      const ctx = await loadRunContext(this.d, this.task);
      for (const s of ctx.secrets) this.log.addSecret(s);
      await this.execute(ctx);
      status = 'success';
    } catch (e) {
      if (e instanceof Rejected) status = 'rejected';
      else if (e instanceof Stopped || this.stopRequested) status = 'stopped';
      else this.log.write(`Error: ${(e as Error).message}`);
    } finally {
      unsubscribe();
      for (const c of this.cleanups.reverse()) {
        try {
          c();
        } catch {
          // Cleanup is best effort; the workspace removal below is the one that matters.
        }
      }
      this.log.write(`Task #${this.task.id} finished: ${status}`);
      await this.log.close().catch(() => undefined);
    }
    const end = this.d.clock.now().toISOString();
    const moved = await this.d.tasks.transition(this.task.id, ['starting', 'running', 'stopping', 'confirmed', 'waiting_confirmation'], status, { end });
    if (!moved) await this.d.tasks.update(this.task.id, { end });
    const final = (await this.d.tasks.findById(this.task.id))!;
    this.d.bus.publish({ type: 'update', project_id: final.project_id, task_id: final.id, template_id: final.template_id, status: final.status });
    await this.d.onFinished(final);
  }

  private onControl(c: TaskControl): void {
    if (c.taskId !== this.task.id) return;
    if (c.action === 'stop' || c.action === 'kill') {
      this.stopRequested = true;
      if (c.action === 'kill') this.killRequested = true;
      this.current?.kill(c.action === 'kill' ? 'SIGKILL' : 'SIGTERM');
      this.confirmation?.('stop');
    } else {
      this.confirmation?.(c.action);
    }
  }

  private async execute(ctx: RunContext): Promise<void> {
    const app = await this.d.apps.find(ctx.template.app);
    if (!app) throw new Error(`App ${ctx.template.app} not found`);
    if (!app.active) throw new Error(`App ${app.title} is not active`);
    const ws = new Workspace(this.d.workRoot, this.task.id);
    this.cleanups.push(() => ws.dispose());
    fs.mkdirSync(this.d.knownHostsDir, { recursive: true, mode: 0o700 });
    const knownHosts = path.join(this.d.knownHostsDir, `project_${this.task.project_id}`);

    const repoDir = ws.path('repository');
    const commit = await this.checkout(ws, ctx.repository, repoDir, ctx.branch, this.task.commit_hash, knownHosts, 'repository');
    await this.d.tasks.update(this.task.id, { commit_hash: commit.hash, commit_message: commit.message.slice(0, 200) });
    this.log.write(`Checked out ${ctx.repository.row.git_url}${ctx.branch ? ` (${ctx.branch})` : ''} at ${commit.hash.slice(0, 10)}`);

    const env: Record<string, string> = {
      PATH: this.d.systemPath,
      HOME: ws.home,
      LANG: 'C.UTF-8',
      ...ctx.envVars,
      GANTRY_TASK_ID: String(this.task.id),
      GANTRY_PROJECT_ID: String(this.task.project_id),
      GANTRY_TEMPLATE_ID: String(this.task.template_id),
    };
    const id = app.id;
    switch (id) {
      case 'ansible':
        return this.runAnsible(ctx, ws, repoDir, env, knownHosts, app.path);
      case 'terraform':
      case 'tofu':
        return this.runTerraform(ctx, ws, repoDir, env, app.path);
      default: {
        // Built-in script apps and custom apps: the app's own arguments, then the script and its arguments.
        const scriptEnv = { ...env, ...scalarEnv(ctx.extraVars), GANTRY_EXTRA_VARS: JSON.stringify(ctx.extraVars) };
        const cwd = id === 'pulumi' ? inside(repoDir, ctx.template.playbook || '.') : repoDir;
        const script = id === 'pulumi' ? '' : inside(repoDir, ctx.template.playbook);
        const argv = id === 'bash' || id === 'python' || id === 'powershell' || id === 'pulumi' ? scriptArgv(id, script, ctx.args) : [script, ...ctx.args];
        return this.exec(app.path, [...app.args, ...argv], cwd, scriptEnv);
      }
    }
  }

  private async checkout(ws: Workspace, repo: RepoWithKey, dir: string, branch: string | null, commitHash: string | null, knownHosts: string, name: string) {
    const access = await gitEnvironment(ws, name, repo.key, knownHosts, this.d.launcher, this.d.systemPath);
    this.cleanups.push(() => access.stop());
    const git = new Git(this.d.launcher, (l) => this.log.write(l));
    return git.checkout({ url: repo.row.git_url, branch: repo.row.git_url.startsWith('/') ? null : branch, commitHash, dir, cwd: ws.dir, env: access.env });
  }

  private async ssh(ws: Workspace, name: string, key: Extract<RunContext['inventoryKey'], { type: 'ssh' }>, knownHosts: string): Promise<SshAccess> {
    const access = await prepareSsh(ws, name, key, knownHosts, this.d.launcher, this.d.systemPath);
    this.cleanups.push(() => access.stop());
    return access;
  }

  private async runAnsible(ctx: RunContext, ws: Workspace, repoDir: string, env: Record<string, string>, knownHosts: string, exe: string): Promise<void> {
    const inv = ctx.inventory;
    let inventoryFile: string | null = null;
    if (inv?.type === 'static') inventoryFile = ws.writeSecretFile('inventory.ini', inv.inventory + '\n');
    else if (inv?.type === 'static-yaml') inventoryFile = ws.writeSecretFile('inventory.yml', inv.inventory + '\n');
    else if (inv?.type === 'file') {
      let base = repoDir;
      if (ctx.inventoryRepository) {
        base = ws.path('inventory-repository');
        await this.checkout(ws, ctx.inventoryRepository, base, ctx.inventoryRepository.row.git_branch || null, null, knownHosts, 'inventory');
      }
      inventoryFile = inside(base, inv.inventory);
    }
    const extra: Record<string, unknown> = { ...ctx.extraVars };
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
      source: v.type === 'password' ? ws.writeSecretFile(`vault-${i}.pass`, (v.password ?? '') + '\n') : inside(repoDir, v.script ?? ''),
    }));
    const tp = ctx.templateParams;
    const p = ctx.params;
    const argv = ansibleArgv({
      playbook: inside(repoDir, ctx.template.playbook),
      inventoryFile,
      login,
      privateKeyFile,
      becomePasswordFile,
      vaults,
      verbosity: p.debug ? (p.debug_level ?? DEBUG_LEVEL_DEFAULT) : null,
      check: !!p.dry_run,
      diff: !!p.diff,
      limit: p.limit?.length ? p.limit : tp.limit,
      tags: p.tags?.length ? p.tags : tp.tags,
      skipTags: p.skip_tags?.length ? p.skip_tags : tp.skip_tags,
      extraVarsFile: Object.keys(extra).length ? ws.writeSecretFile('extra-vars.json', JSON.stringify(extra)) : null,
      sshCommonArgs,
      templateArgs: [],
      taskArgs: ctx.args,
    });
    await this.exec(exe, argv, repoDir, { ...env, ANSIBLE_FORCE_COLOR: '1', ANSIBLE_NOCOLOR: '0', PYTHONUNBUFFERED: '1', ANSIBLE_LOCAL_TEMP: ws.path('home', '.ansible-tmp') });
  }

  private async runTerraform(ctx: RunContext, ws: Workspace, repoDir: string, env: Record<string, string>, exe: string): Promise<void> {
    const cwd = inside(repoDir, ctx.template.playbook || '.');
    const tfEnv = {
      ...env,
      TF_IN_AUTOMATION: '1',
      TF_INPUT: '0',
      ...Object.fromEntries(Object.entries(ctx.extraVars).map(([k, v]) => [`TF_VAR_${k}`, typeof v === 'string' ? v : JSON.stringify(v)])),
    };
    const p = ctx.params;
    const steps = terraformSteps({
      workspace: ctx.inventory && ctx.inventory.type.endsWith('-workspace') ? ctx.inventory.inventory : null,
      destroy: !!p.destroy && ctx.templateParams.allow_destroy,
      upgrade: !!p.upgrade,
      reconfigure: !!p.reconfigure,
      planFile: ws.path('gantry.tfplan'),
      args: ctx.args,
    });
    this.d.terraformState.restore(ctx.template.id, cwd);
    await this.exec(exe, steps.init, cwd, tfEnv);
    if (steps.workspace) await this.exec(exe, steps.workspace, cwd, tfEnv);
    await this.exec(exe, steps.plan, cwd, tfEnv);
    if (p.plan) return;
    const autoApprove = ctx.templateParams.auto_approve || (!!p.auto_approve && ctx.templateParams.allow_auto_approve);
    if (!autoApprove) {
      if (await this.setStatus(['running'], 'waiting_confirmation')) this.d.onWaitingConfirmation?.({ ...this.task, status: 'waiting_confirmation' });
      const answer = await new Promise<'confirm' | 'reject' | 'stop'>((resolve) => {
        this.confirmation = resolve;
        if (this.stopRequested) resolve('stop');
      });
      this.confirmation = null;
      if (answer === 'reject') throw new Rejected();
      if (answer === 'stop') throw new Stopped();
      await this.setStatus(['confirmed', 'waiting_confirmation'], 'running');
    }
    try {
      await this.exec(exe, steps.apply, cwd, tfEnv);
    } finally {
      // Even a failed apply may have changed real resources: keep what it recorded.
      this.d.terraformState.save(ctx.template.id, cwd);
    }
  }

  /** Runs one process to its end; a non-zero exit fails the task, a stop request stops it. */
  private async exec(command: string, args: string[], cwd: string, env: Record<string, string>): Promise<void> {
    if (this.stopRequested) throw new Stopped();
    this.current = this.d.launcher.start({ command, args, cwd, env }, (l) => this.log.write(l));
    if (this.stopRequested) this.current.kill(this.killRequested ? 'SIGKILL' : 'SIGTERM');
    const r = await this.current.done;
    this.current = null;
    if (this.stopRequested) throw new Stopped();
    if (r.spawnError) throw new Error(`${command} could not be started: ${r.spawnError}`);
    if (r.code !== 0) throw new Error(`${path.basename(command)} exited with ${r.code ?? r.signal}`);
  }

  /** Moves the task on; answers whether it moved. */
  private async setStatus(from: string[], to: string): Promise<boolean> {
    await this.log.sync();
    if (await this.d.tasks.transition(this.task.id, from, to)) {
      this.d.bus.publish({ type: 'update', project_id: this.task.project_id, task_id: this.task.id, template_id: this.task.template_id, status: to });
      return true;
    }
    if (this.stopRequested) throw new Stopped();
    return false;
  }
}

/** A path inside a checkout; refuses anything that would climb out of it. */
export function inside(base: string, rel: string): string {
  const full = path.resolve(base, rel);
  const r = path.relative(base, full);
  if (r.startsWith('..') || path.isAbsolute(r)) throw new Error('Path leaves the repository');
  return full;
}

/** Extra variables with scalar values, as environment variables for scripts. */
function scalarEnv(vars: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(vars)) {
    // Extra variables come from task input: they may not steer the process (PATH, LD_*, GANTRY_*...).
    if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(k) && !reservedVariableProblem(k) && ['string', 'number', 'boolean'].includes(typeof v)) out[k] = String(v);
  }
  return out;
}
