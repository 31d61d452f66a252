import path from 'node:path';
import { DEBUG_LEVEL_DEFAULT, WORKFLOW_INPUTS_VAR } from '@gantry/contracts';
import { ansibleArgv } from './apps/ansible.js';
import { unsafeExtraVarsYaml } from './apps/unsafe-yaml.js';
import type { ExecOptions, ExecutionHost, ExecutorDeps } from './executor-types.js';
import { inventoryFileName, lexists, localInventoryPaths } from './inventory-list.js';
import { inside } from './repo-path.js';
import type { RepoWithKey, RunContext } from './run-context.js';
import type { RunInventory } from './run-inventories.js';
import type { SshAccess } from './ssh.js';
import { semaphoreVars } from './task-details.js';
import type { Workspace } from './workspace.js';

/**
 * What an Ansible run needs of the executor running it. Narrow on purpose: the run's processes,
 * keys, checkouts and cleanups stay the executor's, so every app runs them alike.
 */
export interface AnsibleIo {
  deps: Pick<ExecutorDeps, 'sandbox'>;
  host: Pick<ExecutionHost, 'log' | 'onInventoryRead'>;
  /** Runs one sandboxed process to its end (see TaskExecutor.exec); answers its exit code. */
  exec(command: string, args: string[], cwd: string, env: Record<string, string>, o?: ExecOptions): Promise<number>;
  /** The run's access with an SSH key (agent or key file), stopped when the run ends. */
  ssh(
    ws: Workspace,
    name: string,
    key: Extract<RunContext['inventoryKey'], { type: 'ssh' }>,
    knownHosts: string,
  ): Promise<SshAccess>;
  /** Checks a repository out into `dir` under its own key (its access stopped when the run ends). */
  checkout(
    ws: Workspace,
    repo: RepoWithKey,
    dir: string,
    branch: string | null,
    commitHash: string | null,
    knownHosts: string,
    name: string,
  ): Promise<{ hash: string; message: string }>;
  /** Lets the run's processes read these paths outside the workspace (in the sandbox). */
  allowRead(paths: string[]): void;
}

/**
 * An ansible-playbook run: the run's inventories, keys, become and vault passwords as workspace
 * files, trusted variables as extra vars, task data `!unsafe`.
 */
export async function runAnsible(
  io: AnsibleIo,
  ctx: RunContext,
  ws: Workspace,
  repoDir: string,
  env: Record<string, string>,
  knownHosts: string,
  exe: string,
): Promise<void> {
  const inventoryFiles: string[] = [];
  for (const [i, inv] of runInventories(ctx).entries())
    inventoryFiles.push(await inventoryFile(io, ws, repoDir, knownHosts, inv, i));
  const extra: Record<string, unknown> = { ...ctx.trustedVars };
  let login: string | null = null;
  let privateKeyFile: string | null = null;
  let sshCommonArgs: string[] = ['-o', 'StrictHostKeyChecking=accept-new', '-o', `UserKnownHostsFile=${knownHosts}`];
  if (ctx.inventoryKey?.type === 'ssh') {
    const ssh = await io.ssh(ws, 'inventory', ctx.inventoryKey, knownHosts);
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
    io.deps.sandbox.taskOwner && io.deps.sandbox.active === false
      ? { ANSIBLE_REMOTE_TMP: '/tmp/.ansible-gantry-${USER}' }
      : {};
  await io.exec(exe, argv, repoDir, {
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
async function inventoryFile(
  io: AnsibleIo,
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
    io.allowRead(localInventoryPaths(inv.inventory));
    return inv.inventory;
  }
  try {
    let base = repoDir;
    if (inv.repository) {
      base = ws.path(`inventory-repository${n}`);
      await io.checkout(ws, inv.repository, base, inv.branch, null, knownHosts, `inventory${n}`);
      io.host.log(
        `Inventory ${inv.inventory} read from ${inv.repository.row.git_url}${inv.branch ? ` (${inv.branch})` : ''}`,
      );
    }
    const file = inside(base, inv.inventory);
    if (!lexists(file))
      throw new Error(
        `Inventory ${inv.inventory} is not in the repository${inv.branch ? ` at branch ${inv.branch}` : ''}`,
      );
    io.host.onInventoryRead?.(inv.id, null);
    return file;
  } catch (e) {
    io.host.onInventoryRead?.(inv.id, (e as Error).message);
    throw e;
  }
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
