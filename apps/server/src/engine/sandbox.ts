import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SandboxProbe, SandboxStatus, TaskNetworkSetting, TaskSandboxSetting } from '@gantry/contracts';
import { ConfigError, type Config } from '../config/config.js';
import { sqliteFile } from '../config/data-dir.js';
import type { RunnerConfig } from '../config/runner-config.js';
import { bwrapArgv, probeBwrap, type BwrapIdentity, type BwrapLayout, type BwrapProbe } from './bwrap.js';
import type { ProcessLauncher, ProcessSpec, SpecWrapper } from './process.js';
import { slirpPlan } from './sandbox-network.js';
import {
  ensureDirs,
  existing,
  findExecutable,
  homeFolders,
  isDir,
  passableFolders,
  passwdWithHome,
  readableBinds,
  real,
  topmost,
  under,
  underTmp,
  unreachableAncestors,
} from './sandbox-paths.js';
import { measureProbe } from './sandbox-probe.js';
import { currentUid, resolveTaskUser, type TaskIdentity } from './task-user.js';

export { bwrapArgv, probeBwrap, type BwrapIdentity, type BwrapLayout, type BwrapProbe } from './bwrap.js';

export interface TaskSandboxOptions {
  requested: TaskSandboxSetting;
  /** GANTRY_TASK_NETWORK: `isolated` gives each task its own network namespace. */
  network?: TaskNetworkSetting;
  /** Who tasks run as (root server only; null: the server's own user). */
  taskUser?: TaskIdentity | null;
  /** What a task must not see: the data folder, the task folder, keys. Missing paths are skipped. */
  hide: string[];
  /** The PATH tasks get; its folders stay visible even when they lie under /tmp. */
  systemPath: string;
  /** Test hook: how bwrap is tried. */
  probe?: (systemPath: string, identity: BwrapIdentity, runAs?: { uid: number; gid: number }) => BwrapProbe;
  /**
   * Test hook: build and start sandboxes as a server running as this (non-root) user would, its
   * processes (bwrap, unshare, slirp4netns) started as that user, so a root test run also proves
   * the unprivileged path.
   */
  runAs?: { uid: number; gid: number };
}

/** Where the sandbox shows a task its own relay to the Terraform HTTP backend, and the helper that serves it. */
export const RELAY_SOCKET = '/run/gantry/backend.sock';

const RELAY_NODE = '/run/gantry/node';

const RELAY_SCRIPT = '/run/gantry/tcp-forward.mjs';

const FORWARD_SCRIPT = fileURLToPath(new URL('../../sandbox/tcp-forward.mjs', import.meta.url));

/** System folders a task never sees: service sockets (/run holds PostgreSQL's, MySQL's, D-Bus...) and Gantry's settings. */
const SYSTEM_HIDDEN = ['/run', '/var/run', '/etc/gantry'];

interface Decision {
  status: SandboxStatus;
  bwrap: string | null;
  setpriv: string | null;
  slirp: string | null;
  unshare: string | null;
}

/**
 * The sandbox policy of one server or runner: decided once (lazily, so CLI commands never try
 * bwrap), then applied by the process launcher to every app process that asks for it.
 */
export class TaskSandbox implements SpecWrapper {
  private decided: Decision | undefined;
  private measured: Promise<SandboxProbe> | undefined;
  private resolvConf: string | null | undefined;

  constructor(private readonly o: TaskSandboxOptions) {}

  status(): SandboxStatus {
    return this.decide().status;
  }

  get active(): boolean {
    return this.decide().bwrap !== null;
  }

  /** The user tasks run as when it is not the server's own (root server), sandboxed or not. */
  get taskOwner(): TaskIdentity | null {
    return this.o.taskUser ?? null;
  }

  /** Tasks get their own network namespace: the host's loopback (and Gantry's port) is out of their reach. */
  get isolatesNetwork(): boolean {
    return this.active && (this.o.network ?? 'isolated') === 'isolated';
  }

  /** The line every unsandboxed task's log starts with, and the server says at start; null when sandboxed. */
  get warning(): string | null {
    const s = this.status();
    if (s.mode === 'off')
      return `Tasks are not sandboxed: ${s.detail}; a task can read every file of the server's user, the database and secret.key included`;
    if ((this.o.network ?? 'isolated') === 'host')
      return "Tasks share the server's network (GANTRY_TASK_NETWORK is host): a task reaches every service on this host's loopback, the database and Gantry's own port included";
    if (!this.decide().slirp)
      return 'Tasks run in their own network namespace without a way out: slirp4netns is not installed (Debian/Ubuntu package "slirp4netns"), so tasks reach no outside host';
    return null;
  }

  /** For start-up: refuses GANTRY_TASK_SANDBOX=bwrap when bwrap does not work. */
  check(): SandboxStatus {
    const s = this.status();
    if (s.requested === 'bwrap' && s.mode !== 'bwrap')
      throw new ConfigError(`Invalid configuration: GANTRY_TASK_SANDBOX is bwrap but ${s.detail}`);
    return s;
  }

  /**
   * What a task really gets, measured once in a probe process started exactly as tasks are (same
   * launcher, same sandbox): its uid, capabilities and network interfaces.
   */
  measure(launcher: ProcessLauncher): Promise<SandboxProbe> {
    this.measured ??= measureProbe(launcher, this.o.systemPath);
    return this.measured;
  }

  /** The status with what a probe process measured (GET /api/sandbox, the Apps page, start-up). */
  async report(launcher: ProcessLauncher): Promise<SandboxStatus> {
    return { ...this.status(), probe: await this.measure(launcher) };
  }

  /** `spec` run inside bwrap, with `writable` (the workspace) the only writable paths. */
  wrap(spec: ProcessSpec, writable: string[]): ProcessSpec {
    const d = this.decide();
    const owner = this.o.taskUser ?? null;
    if (!d.bwrap) {
      if (!owner) return spec;
      // Unsandboxed, a root server's task still runs as the task user, which must reach its workspace.
      const blocked = unreachableAncestors([real(spec.cwd)], owner)[0];
      if (blocked)
        throw new Error(
          `the task user (uid ${owner.uid}) cannot enter ${blocked}: with GANTRY_TASK_SANDBOX=off, set GANTRY_TASK_DIR to a folder whose parents that user can pass through`,
        );
      return { ...spec, uid: owner.uid, gid: owner.gid };
    }
    const searchPath = spec.env.PATH ?? this.o.systemPath;
    const command = findExecutable(spec.command, searchPath);
    // Same message as a failed spawn outside the sandbox, so "could not be started" reads the same.
    if (!command) throw new Error(`spawn ${spec.command} ENOENT`);
    const hidden = existing([
      ...this.o.hide,
      ...SYSTEM_HIDDEN,
      // (A simulated server user of a test has no home of its own here.)
      ...(this.o.runAs ? [] : HOME_CREDENTIALS.flatMap(homeFolders)),
      ...(owner || this.o.runAs ? [] : ensureDirs(homeFolders('.ansible/tmp'))),
    ]);
    const hiddenDirs = topmost(hidden.filter((p) => isDir(p) && p !== '/' && !under('/tmp', p)));
    const covered = (p: string) => under('/tmp', p) || hiddenDirs.some((h) => under(h, p));
    const hiddenFiles = hidden.filter((p) => !isDir(p) && !covered(p));
    const readOnly = underTmp(
      [...searchPath.split(path.delimiter).filter((p) => path.isAbsolute(p)), command],
      hiddenDirs,
    );
    // No network at all for helpers that need none; with GANTRY_TASK_NETWORK=isolated, tasks get
    // their own namespace, given a way out by slirp4netns when it is installed.
    const wantsNetwork = spec.sandbox?.network !== false;
    const isolate = this.isolatesNetwork || !wantsNetwork;
    const slirp = isolate && wantsNetwork ? d.slirp : null;
    const resolv = slirp ? this.sandboxResolvConf() : null;
    readOnly.push(...readableBinds(spec.sandbox?.readable ?? [], hidden));
    if (resolv) readOnly.push(resolv);
    const resolvTarget = real('/etc/resolv.conf');
    if (!resolv && hiddenDirs.some((h) => under(h, resolvTarget)) && resolvTarget !== '/etc/resolv.conf')
      readOnly.push([resolvTarget, resolvTarget]);
    const shownWritable = existing(writable);
    const cwd = real(spec.cwd);
    // Tools find the task user's home in /etc/passwd (ansible's local connection, ssh): there it
    // is the task's HOME, not the real user's (nobody's is /nonexistent).
    const passwd = owner
      ? passwdWithHome(owner, spec.env.HOME && path.isAbsolute(spec.env.HOME) ? spec.env.HOME : cwd)
      : null;
    if (passwd) readOnly.push([passwd, '/etc/passwd']);
    const tmpfsRoots = ['/tmp', ...hiddenDirs];
    const layout: BwrapLayout = {
      passable: owner
        ? passableFolders([...shownWritable, cwd, ...readOnly.map(([, target]) => target)], tmpfsRoots)
        : [],
      unreachable: owner
        ? unreachableAncestors([...shownWritable, cwd], owner).filter((u) => !hiddenDirs.some((h) => under(h, u)))
        : [],
      hiddenDirs,
      hiddenFiles,
      readOnly,
      writable: shownWritable,
      extraBinds: [],
      cwd,
    };
    let inner = command;
    let innerArgs = spec.args;
    const forward = spec.sandbox?.forward;
    if (forward) {
      // The task's own Terraform HTTP backend, through a socket only this sandbox shows.
      layout.readOnly.push([real(process.execPath), RELAY_NODE], [FORWARD_SCRIPT, RELAY_SCRIPT]);
      layout.extraBinds!.push([forward.socket, RELAY_SOCKET]);
      layout.passable!.push(path.dirname(RELAY_SOCKET));
      inner = RELAY_NODE;
      innerArgs = [RELAY_SCRIPT, String(forward.port), RELAY_SOCKET, '--', command, ...spec.args];
    }
    const runAs = this.o.runAs;
    const rootless = (runAs?.uid ?? currentUid()) !== 0;
    // The network namespace is made by unshare(1) around bwrap, not by bwrap: bwrap's own
    // loopback set-up now and then fails ("Failed RTM_NEWADDR"), and slirp4netns configures the
    // loopback itself. Unprivileged, the namespace belongs to a user namespace this server owns,
    // so slirp4netns (running as this user) may join it; bwrap then nests the task's own.
    const identity: BwrapIdentity = {
      dropTo: owner && d.setpriv ? { uid: owner.uid, gid: owner.gid, setpriv: d.setpriv } : null,
      unshareNet: isolate && !d.unshare,
      userns:
        isolate && d.unshare && rootless
          ? { uid: runAs?.uid ?? currentUid() ?? 0, gid: runAs?.gid ?? process.getgid?.() ?? 0 }
          : null,
      waitForNetwork: slirp !== null,
    };
    let wrappedCommand = d.bwrap;
    let wrappedArgs = bwrapArgv(layout, inner, innerArgs, identity);
    if (isolate && d.unshare) {
      wrappedCommand = d.unshare;
      wrappedArgs = [...(rootless ? ['--user', '--map-root-user'] : []), '--net', '--', d.bwrap, ...wrappedArgs];
    }
    const network = slirp ? slirpPlan(slirp, rootless, !!d.unshare, runAs) : undefined;
    const as = runAs ? { uid: runAs.uid, gid: runAs.gid } : {};
    const wrapped = { ...spec, ...as, command: wrappedCommand, args: wrappedArgs, ...(network ? { network } : {}) };
    if (!passwd) return wrapped;
    // Off the event loop: the task has ended, nothing waits for its passwd copy to go.
    const removePasswd = () => void fs.promises.rm(passwd, { force: true }).catch(() => undefined);
    return { ...wrapped, attach: { pipes: 0, start: () => removePasswd } };
  }

  /** A resolv.conf naming slirp4netns's DNS when the host's names a loopback resolver (unreachable from the task's network). */
  private sandboxResolvConf(): [string, string] | null {
    if (this.resolvConf === undefined) {
      this.resolvConf = null;
      try {
        const text = fs.readFileSync('/etc/resolv.conf', 'utf8');
        if (/^\s*nameserver\s+(127\.|::1\b)/m.test(text)) {
          const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'gantry-resolv-')), 'resolv.conf');
          fs.writeFileSync(
            file,
            `${text.replace(/^\s*nameserver\s+(127\.\S*|::1)\s*$/gm, '')}\nnameserver 10.0.2.3\n`,
            { mode: 0o644 },
          );
          fs.chmodSync(path.dirname(file), 0o755);
          this.resolvConf = file;
        }
      } catch {
        // No resolv.conf: names do not resolve on the host either.
      }
    }
    return this.resolvConf ? [this.resolvConf, real('/etc/resolv.conf')] : null;
  }

  private decide(): Decision {
    if (this.decided) return this.decided;
    const requested = this.o.requested;
    const off = (detail: string): Decision => ({
      status: { mode: 'off', requested, detail, ...this.extra() },
      bwrap: null,
      setpriv: null,
      slirp: null,
      unshare: null,
    });
    if (requested === 'off') {
      this.decided = off('GANTRY_TASK_SANDBOX is off');
      return this.decided;
    }
    const owner = this.o.taskUser ?? null;
    const setpriv = owner ? findExecutable('setpriv', this.o.systemPath) : null;
    if (owner && !setpriv) {
      this.decided = off(
        'setpriv (util-linux) is not installed, and tasks of a root server must drop to GANTRY_TASK_USER',
      );
      return this.decided;
    }
    const probe = (this.o.probe ?? probeBwrap)(
      this.o.systemPath,
      { dropTo: owner && setpriv ? { uid: owner.uid, gid: owner.gid, setpriv } : null },
      this.o.runAs,
    );
    if (!probe.ok) {
      this.decided = off(probe.reason);
      return this.decided;
    }
    const isolated = (this.o.network ?? 'isolated') === 'isolated';
    this.decided = {
      status: { mode: 'bwrap', requested, detail: `${probe.version} (${probe.bwrap})`, ...this.extra() },
      bwrap: probe.bwrap,
      setpriv,
      slirp: isolated ? findExecutable('slirp4netns', this.o.systemPath) : null,
      unshare: findExecutable('unshare', this.o.systemPath),
    };
    return this.decided;
  }

  private extra(): { network_requested: TaskNetworkSetting; server_uid: number | null } {
    return { network_requested: this.o.network ?? 'isolated', server_uid: currentUid() };
  }
}

/**
 * Credentials tools keep in the server user's home: hidden from tasks (folders become empty,
 * files read as empty). The rest of the home stays readable, e.g. ansible collections.
 */
const HOME_CREDENTIALS = [
  '.ssh',
  '.aws',
  '.azure',
  '.kube',
  '.docker',
  '.gnupg',
  '.config/gcloud',
  '.pgpass',
  '.my.cnf',
  '.netrc',
  '.git-credentials',
  '.vault-token',
  '.terraform.d/credentials.tfrc.json',
  '.pulumi/credentials.json',
];

/** The server's policy: the data folder, every workspace and the SQLite file's folder are hidden. */
export function serverTaskSandbox(
  config: Pick<Config, 'taskSandbox' | 'dataDir' | 'taskDir' | 'dbUrl' | 'systemPath'> &
    Partial<Pick<Config, 'taskNetwork' | 'taskUser'>>,
): TaskSandbox {
  const sqlite = sqliteFile(config.dbUrl);
  return new TaskSandbox({
    requested: config.taskSandbox,
    network: config.taskNetwork ?? 'isolated',
    taskUser: resolveTaskUser(config.taskUser ?? null),
    hide: [config.dataDir, config.taskDir, ...(sqlite ? [path.dirname(sqlite)] : [])],
    systemPath: config.systemPath,
  });
}

/** A runner's policy: its work folder (keys, known_hosts, workspaces) and its private key are hidden. */
export function runnerTaskSandbox(
  config: Pick<RunnerConfig, 'taskSandbox' | 'workDir' | 'privateKeyFile' | 'systemPath'> &
    Partial<Pick<RunnerConfig, 'taskNetwork' | 'taskUser'>>,
): TaskSandbox {
  return new TaskSandbox({
    requested: config.taskSandbox,
    network: config.taskNetwork ?? 'isolated',
    taskUser: resolveTaskUser(config.taskUser ?? null),
    hide: [config.workDir, config.privateKeyFile],
    systemPath: config.systemPath,
  });
}
