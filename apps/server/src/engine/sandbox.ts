import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import type { SandboxProbe, SandboxStatus, TaskNetworkSetting, TaskSandboxSetting } from '@gantry/contracts';
import { ConfigError, type Config } from '../config/config.js';
import { sqliteFile } from '../config/data-dir.js';
import type { RunnerConfig } from '../config/runner-config.js';
import type { ProcessLauncher, ProcessSpec, SpecWrapper } from './process.js';
import { currentUid, resolveTaskUser, type TaskIdentity } from './task-user.js';

/** What one sandboxed process sees beyond the read-only system (all paths absolute and real). */
export interface BwrapLayout {
  /**
   * Folders on the way to the workspace that the task's user may not even enter (e.g. a 0700
   * /root): replaced by an empty tmpfs, so the binds below can show the workspace. The task could
   * not read what they hold anyway.
   */
  unreachable?: string[];
  /** Folders replaced by an empty tmpfs: the data folder, every workspace, keys, /run, /etc/gantry. */
  hiddenDirs: string[];
  /** Single files replaced by /dev/null (a key file outside any hidden folder). */
  hiddenFiles: string[];
  /** Shown again read-only ([source, target]): PATH folders and the program when they live under the private /tmp, resolv.conf. */
  readOnly: Array<[string, string]>;
  /**
   * Folders bwrap makes on a tmpfs on the way to a bind: made passable (0711) for the task user,
   * whatever umask bwrap runs with.
   */
  passable?: string[];
  /** Shown again read-write: the task's own workspace. */
  writable: string[];
  /** Shown read-write at another path ([source, target]): the task's own relay socket. */
  extraBinds?: Array<[string, string]>;
  cwd: string;
}

/** How the process inside is started: who it runs as and which namespaces it gets beyond mount and PID. */
export interface BwrapIdentity {
  /** Root server: bwrap keeps just what setpriv needs to become this user and drop everything. */
  dropTo?: { uid: number; gid: number; setpriv: string } | null;
  /** Non-root server with its own network: the uid/gid the nested user namespace maps back. */
  userns?: { uid: number; gid: number } | null;
  /** bwrap makes the network namespace itself (root server). */
  unshareNet?: boolean;
  /** bwrap reports the sandbox's pid on fd 3 and runs the command once fd 4 is written (network set-up). */
  waitForNetwork?: boolean;
}

/**
 * The bwrap command line for one process: the system read-only, a fresh /dev and /proc, a private
 * /tmp, its own PID namespace (so /proc shows no server process, its environment or its root),
 * its own session (no terminal to inject keystrokes into) and no capability at all. Hidden paths
 * come before the binds, so a bind inside a hidden folder shows just that path.
 */
export function bwrapArgv(layout: BwrapLayout, command: string, args: string[], identity: BwrapIdentity = {}): string[] {
  // /tmp and /dev/shm are the task's own, writable whoever it runs as (sticky, like the real ones).
  const argv = ['--ro-bind', '/', '/', '--dev', '/dev', '--perms', '1777', '--tmpfs', '/dev/shm', '--proc', '/proc', '--perms', '1777', '--tmpfs', '/tmp', '--unshare-pid', '--die-with-parent', '--new-session'];
  if (identity.unshareNet) argv.push('--unshare-net');
  if (identity.userns) argv.push('--unshare-user', '--uid', String(identity.userns.uid), '--gid', String(identity.userns.gid));
  // Nothing survives into the task; as root, only the three capabilities setpriv needs to drop to
  // the task user (and then to clear the bounding set) are kept until it does.
  argv.push('--cap-drop', 'ALL');
  // (and, for bwrap's own chdir into the workspace the task user owns, CAP_DAC_OVERRIDE: the
  // change to a non-zero uid clears every capability before the task's command starts).
  if (identity.dropTo) argv.push('--cap-add', 'CAP_SETUID', '--cap-add', 'CAP_SETGID', '--cap-add', 'CAP_SETPCAP', '--cap-add', 'CAP_DAC_OVERRIDE');
  if (identity.waitForNetwork) argv.push('--info-fd', '3', '--block-fd', '4');
  for (const dir of layout.unreachable ?? []) argv.push('--perms', '0755', '--tmpfs', dir);
  for (const dir of layout.hiddenDirs) argv.push('--tmpfs', dir);
  for (const file of layout.hiddenFiles) argv.push('--ro-bind', '/dev/null', file);
  for (const dir of layout.passable ?? []) argv.push('--perms', '0711', '--dir', dir);
  for (const [source, target] of layout.readOnly) argv.push('--ro-bind', source, target);
  for (const p of layout.writable) argv.push('--bind', p, p);
  for (const [source, target] of layout.extraBinds ?? []) argv.push('--bind', source, target);
  argv.push('--chdir', layout.cwd, '--');
  if (identity.dropTo) {
    const d = identity.dropTo;
    argv.push(d.setpriv, `--reuid=${d.uid}`, `--regid=${d.gid}`, '--clear-groups', '--inh-caps=-all', '--bounding-set=-all', '--no-new-privs', '--');
  }
  argv.push(command, ...args);
  return argv;
}

/** Outcome of trying bwrap once: its path and version, or why it cannot be used. */
export type BwrapProbe = { ok: true; bwrap: string; version: string } | { ok: false; reason: string };

/** Runs a trivial sandbox the way tasks will be run (PID namespace, dropped capabilities), with a timeout. */
export function probeBwrap(systemPath: string, identity: BwrapIdentity = {}, runAs?: { uid: number; gid: number }): BwrapProbe {
  const bwrap = findExecutable('bwrap', systemPath);
  if (!bwrap) return { ok: false, reason: 'bubblewrap (bwrap) is not installed' };
  const truePath = findExecutable('true', systemPath) ?? '/bin/true';
  // The same command line a task gets, with nothing hidden or bound: what fails here fails every task.
  const run = spawnSync(
    bwrap,
    bwrapArgv({ hiddenDirs: [], hiddenFiles: [], readOnly: [], writable: [], cwd: '/' }, truePath, [], { dropTo: identity.dropTo }),
    {
      env: { PATH: systemPath },
      timeout: 10_000,
      encoding: 'utf8',
      cwd: '/',
      ...(runAs ?? {}),
    },
  );
  if (run.error || run.status !== 0) {
    const why = run.error?.message ?? (run.stderr.trim().split('\n')[0] || `exit code ${run.status ?? run.signal}`);
    return { ok: false, reason: `bwrap does not work here (${why})` };
  }
  const version = spawnSync(bwrap, ['--version'], { timeout: 10_000, encoding: 'utf8' }).stdout?.trim() || 'bubblewrap';
  return { ok: true, bwrap, version };
}

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
    if (resolv) readOnly.push(resolv);
    const resolvTarget = real('/etc/resolv.conf');
    if (!resolv && hiddenDirs.some((h) => under(h, resolvTarget)) && resolvTarget !== '/etc/resolv.conf') readOnly.push([resolvTarget, resolvTarget]);
    const shownWritable = existing(writable);
    const cwd = real(spec.cwd);
    // Tools find the task user's home in /etc/passwd (ansible's local connection, ssh): there it
    // is the task's HOME, not the real user's (nobody's is /nonexistent).
    const passwd = owner ? passwdWithHome(owner, spec.env.HOME && path.isAbsolute(spec.env.HOME) ? spec.env.HOME : cwd) : null;
    if (passwd) readOnly.push([passwd, '/etc/passwd']);
    const tmpfsRoots = ['/tmp', ...hiddenDirs];
    const layout: BwrapLayout = {
      passable: owner ? passableFolders([...shownWritable, cwd, ...readOnly.map(([, target]) => target)], tmpfsRoots) : [],
      unreachable: owner ? unreachableAncestors([...shownWritable, cwd], owner).filter((u) => !hiddenDirs.some((h) => under(h, u))) : [],
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
      userns: isolate && d.unshare && rootless ? { uid: runAs?.uid ?? currentUid() ?? 0, gid: runAs?.gid ?? process.getgid?.() ?? 0 } : null,
      waitForNetwork: slirp !== null,
    };
    let wrappedCommand = d.bwrap;
    let wrappedArgs = bwrapArgv(layout, inner, innerArgs, identity);
    if (isolate && d.unshare) {
      wrappedCommand = d.unshare;
      wrappedArgs = [...(rootless ? ['--user', '--map-root-user'] : []), '--net', '--', d.bwrap, ...wrappedArgs];
    }
    const attach = slirp ? slirpAttach(slirp, rootless, !!d.unshare, runAs) : undefined;
    const as = runAs ? { uid: runAs.uid, gid: runAs.gid } : {};
    if (!passwd) return { ...spec, ...as, command: wrappedCommand, args: wrappedArgs, attach };
    const removePasswd = () => fs.rmSync(path.dirname(passwd), { recursive: true, force: true });
    return {
      ...spec,
      ...as,
      command: wrappedCommand,
      args: wrappedArgs,
      attach: {
        pipes: attach?.pipes ?? 0,
        start(child) {
          const release = attach?.start(child);
          return () => {
            release?.();
            removePasswd();
          };
        },
      },
    };
  }

  /** A resolv.conf naming slirp4netns's DNS when the host's names a loopback resolver (unreachable from the task's network). */
  private sandboxResolvConf(): [string, string] | null {
    if (this.resolvConf === undefined) {
      this.resolvConf = null;
      try {
        const text = fs.readFileSync('/etc/resolv.conf', 'utf8');
        if (/^\s*nameserver\s+(127\.|::1\b)/m.test(text)) {
          const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'gantry-resolv-')), 'resolv.conf');
          fs.writeFileSync(file, `${text.replace(/^\s*nameserver\s+(127\.\S*|::1)\s*$/gm, '')}\nnameserver 10.0.2.3\n`, { mode: 0o644 });
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
    const off = (detail: string): Decision => ({ status: { mode: 'off', requested, detail, ...this.extra() }, bwrap: null, setpriv: null, slirp: null, unshare: null });
    if (requested === 'off') {
      this.decided = off('GANTRY_TASK_SANDBOX is off');
      return this.decided;
    }
    const owner = this.o.taskUser ?? null;
    const setpriv = owner ? findExecutable('setpriv', this.o.systemPath) : null;
    if (owner && !setpriv) {
      this.decided = off('setpriv (util-linux) is not installed, and tasks of a root server must drop to GANTRY_TASK_USER');
      return this.decided;
    }
    const probe = (this.o.probe ?? probeBwrap)(this.o.systemPath, { dropTo: owner && setpriv ? { uid: owner.uid, gid: owner.gid, setpriv } : null }, this.o.runAs);
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
 * Sets up the task's network before its command runs: bwrap reports the sandbox's pid (fd 3) and
 * waits (fd 4); slirp4netns gives the namespace a way out with the host's loopback disabled, then
 * says it is ready and bwrap goes on. Without a working slirp4netns the task still runs, with its
 * own loopback only.
 */
function slirpAttach(slirp: string, rootless: boolean, viaUnshare: boolean, runAs?: { uid: number; gid: number }): NonNullable<ProcessSpec['attach']> {
  return {
    pipes: 2,
    start(child) {
      const info = child.stdio[3] as Readable | null;
      const block = child.stdio[4] as Writable | null;
      let net: ChildProcess | null = null;
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        clearTimeout(guard);
        block?.end('1');
      };
      const guard = setTimeout(release, 10_000);
      block?.on('error', () => undefined);
      info?.on('error', () => undefined);
      let text = '';
      info?.on('data', (chunk: Buffer) => {
        text += chunk.toString('utf8');
        const m = /"child-pid":\s*(\d+)/.exec(text);
        if (!m || net || !child.pid) return;
        // The namespace is unshare's (the process spawned), when unshare made it; else bwrap's sandbox.
        const target = viaUnshare ? child.pid : Number(m[1]);
        const args = [
          ...(rootless ? [`--userns-path=/proc/${child.pid}/ns/user`] : []),
          '--configure',
          '--mtu=65520',
          '--disable-host-loopback',
          '--ready-fd=3',
          String(target),
          'tap0',
        ];
        net = spawn(slirp, args, { stdio: ['ignore', 'ignore', 'ignore', 'pipe'], ...(runAs ?? {}) });
        (net.stdio[3] as Readable).once('data', release);
        net.once('error', release);
        net.once('exit', release);
      });
      return () => {
        clearTimeout(guard);
        net?.kill('SIGKILL');
      };
    },
  };
}

/** Runs `cat /proc/self/status /proc/net/dev` as a task would be run and reads what it is. */
async function measureProbe(launcher: ProcessLauncher, systemPath: string): Promise<SandboxProbe> {
  const lines: string[] = [];
  const run = launcher.start(
    { command: 'cat', args: ['/proc/self/status', '/proc/net/dev'], cwd: '/', env: { PATH: systemPath }, sandbox: { writable: [] } },
    (l) => lines.push(l),
  );
  const timer = setTimeout(() => run.kill('SIGKILL'), 15_000);
  const r = await run.done;
  clearTimeout(timer);
  const field = (name: string) => lines.find((l) => l.startsWith(`${name}:`))?.split(/\s+/)[1] ?? null;
  if (r.code !== 0 || !field('Uid')) {
    return { uid: null, user: null, capabilities: null, bounding: null, network: null, error: r.spawnError ?? `the probe exited with ${r.code ?? r.signal}` };
  }
  // Uid: real, effective, saved, filesystem: the effective one is what the kernel checks.
  const uid = Number(lines.find((l) => l.startsWith('Uid:'))!.split(/\s+/)[2]);
  // /proc/net/dev: two header lines, then one "name: counters" line per interface.
  const header = lines.findIndex((l) => l.includes('|bytes'));
  const interfaces = header < 0 ? [] : lines.slice(header + 1).map((l) => l.trim().split(':')[0]!).filter(Boolean);
  const others = interfaces.filter((i) => i !== 'lo');
  const network = others.length === 0 ? 'loopback-only' : others.length === 1 && others[0] === 'tap0' ? 'isolated' : 'host';
  return { uid, user: userName(uid), capabilities: field('CapEff'), bounding: field('CapBnd'), network, error: null };
}

function userName(uid: number): string | null {
  try {
    const line = fs
      .readFileSync('/etc/passwd', 'utf8')
      .split('\n')
      .find((l) => l.split(':')[2] === String(uid));
    return line?.split(':')[0] ?? null;
  } catch {
    return null;
  }
}

/**
 * A copy of /etc/passwd in which the task user's entry names `home` (and exists at all: a uid
 * without an entry breaks Python's getpass). Written to a private folder; removed with the process.
 */
function passwdWithHome(owner: TaskIdentity, home: string): string {
  let lines: string[] = [];
  try {
    lines = fs.readFileSync('/etc/passwd', 'utf8').split('\n').filter(Boolean);
  } catch {
    // No passwd file: the entry below is all there is.
  }
  const mine = lines.findIndex((l) => l.split(':')[2] === String(owner.uid));
  const name = owner.name ?? (mine >= 0 ? lines[mine]!.split(':')[0] : 'gantry-task');
  const entry = `${name}:x:${owner.uid}:${owner.gid}:Gantry task:${home}:/bin/sh`;
  if (mine >= 0) lines[mine] = entry;
  else lines.push(entry);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gantry-passwd-'));
  const file = path.join(dir, 'passwd');
  fs.writeFileSync(file, `${lines.join('\n')}\n`, { mode: 0o644 });
  fs.chmodSync(file, 0o644);
  return file;
}

/** Folders strictly between a tmpfs root and each path: bwrap creates them for the bind. */
function passableFolders(paths: string[], roots: string[]): string[] {
  const out = new Set<string>();
  for (const p of paths) {
    const root = roots.filter((r) => under(r, p) && r !== p).sort((a, b) => b.length - a.length)[0];
    if (!root) continue;
    for (let d = path.dirname(p); d !== root && under(root, d); d = path.dirname(d)) out.add(d);
  }
  return [...out].sort((a, b) => a.split('/').length - b.split('/').length || a.localeCompare(b));
}

/**
 * Ancestors of the shown paths that `owner` may not enter (no search permission): a tmpfs takes
 * their place inside the sandbox so the workspace below is reachable. Their content was out of
 * the task user's reach anyway.
 */
function unreachableAncestors(paths: string[], owner: TaskIdentity): string[] {
  const out = new Set<string>();
  for (const p of paths) {
    let dir = path.dirname(p);
    const chain: string[] = [];
    while (dir !== '/' && dir !== '.') {
      chain.unshift(dir);
      dir = path.dirname(dir);
    }
    for (const d of chain) {
      if (under('/tmp', d)) break;
      try {
        const st = fs.statSync(d);
        const x = st.uid === owner.uid ? st.mode & 0o100 : st.gid === owner.gid ? st.mode & 0o010 : st.mode & 0o001;
        if (!x) {
          out.add(d);
          break;
        }
      } catch {
        break;
      }
    }
  }
  return topmost([...out]);
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
  config: Pick<Config, 'taskSandbox' | 'dataDir' | 'taskDir' | 'dbUrl' | 'systemPath'> & Partial<Pick<Config, 'taskNetwork' | 'taskUser'>>,
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
  config: Pick<RunnerConfig, 'taskSandbox' | 'workDir' | 'privateKeyFile' | 'systemPath'> & Partial<Pick<RunnerConfig, 'taskNetwork' | 'taskUser'>>,
): TaskSandbox {
  return new TaskSandbox({
    requested: config.taskSandbox,
    network: config.taskNetwork ?? 'isolated',
    taskUser: resolveTaskUser(config.taskUser ?? null),
    hide: [config.workDir, config.privateKeyFile],
    systemPath: config.systemPath,
  });
}

/**
 * A folder in the server user's home, for both HOME and the passwd entry: ssh reads the passwd
 * home's ~/.ssh whatever HOME says, and ansible's local connection makes its temp files in
 * ~<user>/.ansible/tmp. Hidden, ~/.ssh shows empty; ~/.ansible/tmp becomes a private, writable tmpfs
 * (collections installed in ~/.ansible stay visible).
 */
function homeFolders(name: string): string[] {
  const homes = new Set([os.homedir()]);
  try {
    homes.add(os.userInfo().homedir);
  } catch {
    // No passwd entry for this uid (some containers): HOME is all there is.
  }
  return [...homes].map((h) => path.join(h, name));
}

/** Creates the folders that are missing (0700), so the sandbox can mount over them. */
function ensureDirs(dirs: string[]): string[] {
  for (const d of dirs) {
    try {
      fs.mkdirSync(d, { recursive: true, mode: 0o700 });
    } catch {
      // A read-only home: ansible's local connection will say what it misses.
    }
  }
  return dirs;
}

/** An executable's absolute path: a path is taken as it is, a name is looked up on `searchPath`. */
function findExecutable(name: string, searchPath: string): string | null {
  const candidates = name.includes('/')
    ? [path.resolve(name)]
    : searchPath
        .split(path.delimiter)
        .filter((d) => path.isAbsolute(d))
        .map((d) => path.join(d, name));
  for (const c of candidates) {
    try {
      fs.accessSync(c, fs.constants.X_OK);
      if (fs.statSync(c).isFile()) return c;
    } catch {
      // Not here: the next folder.
    }
  }
  return null;
}

/**
 * Binds that show `paths` (PATH folders, then the program) again when they lie under /tmp, by
 * their own or their real path: [real path, path seen]. Skips what an earlier bind already shows
 * and what lies in a hidden folder.
 */
function underTmp(paths: string[], hiddenDirs: string[]): Array<[string, string]> {
  const binds: Array<[string, string]> = [];
  for (const p of paths) {
    const r = existing([p])[0];
    if (!r || hiddenDirs.some((d) => under(d, r))) continue;
    for (const target of new Set([r, p])) {
      if (under('/tmp', target) && !binds.some(([, shown]) => under(shown, target))) binds.push([r, target]);
    }
  }
  return binds;
}

/** Real paths of the entries that exist (bwrap mounts on real paths; a missing one would fail it). */
function existing(paths: string[]): string[] {
  return [
    ...new Set(
      paths.flatMap((p) => {
        try {
          return [fs.realpathSync(p)];
        } catch {
          return [];
        }
      }),
    ),
  ];
}

function real(p: string): string {
  try {
    return fs.realpathSync(p);
  } catch {
    return p;
  }
}

function isDir(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/** `p` is `dir` or inside it. */
function under(dir: string, p: string): boolean {
  const r = path.relative(dir, p);
  return r === '' || (!r.startsWith('..') && !path.isAbsolute(r));
}

/** Drops folders inside another listed folder, parents first. */
function topmost(dirs: string[]): string[] {
  return dirs.filter((d) => !dirs.some((o) => o !== d && under(o, d))).sort();
}
