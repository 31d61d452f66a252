import { spawnSync } from 'node:child_process';
import { findExecutable } from './sandbox-paths.js';

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
export function bwrapArgv(
  layout: BwrapLayout,
  command: string,
  args: string[],
  identity: BwrapIdentity = {},
): string[] {
  // /tmp and /dev/shm are the task's own, writable whoever it runs as (sticky, like the real ones).
  const argv = [
    '--ro-bind',
    '/',
    '/',
    '--dev',
    '/dev',
    '--perms',
    '1777',
    '--tmpfs',
    '/dev/shm',
    '--proc',
    '/proc',
    '--perms',
    '1777',
    '--tmpfs',
    '/tmp',
    '--unshare-pid',
    '--die-with-parent',
    '--new-session',
  ];
  if (identity.unshareNet) argv.push('--unshare-net');
  if (identity.userns)
    argv.push('--unshare-user', '--uid', String(identity.userns.uid), '--gid', String(identity.userns.gid));
  // Nothing survives into the task; as root, only the three capabilities setpriv needs to drop to
  // the task user (and then to clear the bounding set) are kept until it does.
  argv.push('--cap-drop', 'ALL');
  // (and, for bwrap's own chdir into the workspace the task user owns, CAP_DAC_OVERRIDE: the
  // change to a non-zero uid clears every capability before the task's command starts).
  if (identity.dropTo)
    argv.push(
      '--cap-add',
      'CAP_SETUID',
      '--cap-add',
      'CAP_SETGID',
      '--cap-add',
      'CAP_SETPCAP',
      '--cap-add',
      'CAP_DAC_OVERRIDE',
    );
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
    argv.push(
      d.setpriv,
      `--reuid=${d.uid}`,
      `--regid=${d.gid}`,
      '--clear-groups',
      '--inh-caps=-all',
      '--bounding-set=-all',
      '--no-new-privs',
      '--',
    );
  }
  argv.push(command, ...args);
  return argv;
}

/** Outcome of trying bwrap once: its path and version, or why it cannot be used. */
export type BwrapProbe = { ok: true; bwrap: string; version: string } | { ok: false; reason: string };

/** Runs a trivial sandbox the way tasks will be run (PID namespace, dropped capabilities), with a timeout. */
export function probeBwrap(
  systemPath: string,
  identity: BwrapIdentity = {},
  runAs?: { uid: number; gid: number },
): BwrapProbe {
  const bwrap = findExecutable('bwrap', systemPath);
  if (!bwrap) return { ok: false, reason: 'bubblewrap (bwrap) is not installed' };
  const truePath = findExecutable('true', systemPath) ?? '/bin/true';
  // The same command line a task gets, with nothing hidden or bound: what fails here fails every task.
  const run = spawnSync(
    bwrap,
    bwrapArgv({ hiddenDirs: [], hiddenFiles: [], readOnly: [], writable: [], cwd: '/' }, truePath, [], {
      dropTo: identity.dropTo,
    }),
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
