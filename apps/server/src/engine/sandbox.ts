import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { SandboxStatus, TaskSandboxSetting } from '@gantry/contracts';
import { ConfigError, type Config } from '../config/config.js';
import { sqliteFile } from '../config/data-dir.js';
import type { RunnerConfig } from '../config/runner-config.js';
import type { ProcessSpec, SpecWrapper } from './process.js';

/** What one sandboxed process sees beyond the read-only system (all paths absolute and real). */
export interface BwrapLayout {
  /** Folders replaced by an empty tmpfs: the data folder, every workspace, keys. */
  hiddenDirs: string[];
  /** Single files replaced by /dev/null (a key file outside any hidden folder). */
  hiddenFiles: string[];
  /** Shown again read-only ([source, target]): PATH folders and the program when they live under the private /tmp. */
  readOnly: Array<[string, string]>;
  /** Shown again read-write: the task's own workspace and its project's known_hosts file. */
  writable: string[];
  cwd: string;
}

/**
 * The bwrap command line for one process: the system read-only, a fresh /dev and /proc, a private
 * /tmp, its own PID namespace (so /proc shows no server process, its environment or its root), the
 * network shared (tasks deploy over SSH). Hidden paths come before the binds, so a bind inside a
 * hidden folder shows just that path. No --new-session: the task stays in the process group the
 * engine signals to stop it.
 */
export function bwrapArgv(layout: BwrapLayout, command: string, args: string[]): string[] {
  const argv = [
    '--ro-bind',
    '/',
    '/',
    '--dev',
    '/dev',
    '--proc',
    '/proc',
    '--tmpfs',
    '/tmp',
    '--unshare-pid',
    '--die-with-parent',
  ];
  for (const dir of layout.hiddenDirs) argv.push('--tmpfs', dir);
  for (const file of layout.hiddenFiles) argv.push('--ro-bind', '/dev/null', file);
  for (const [source, target] of layout.readOnly) argv.push('--ro-bind', source, target);
  for (const p of layout.writable) argv.push('--bind', p, p);
  argv.push('--chdir', layout.cwd, '--', command, ...args);
  return argv;
}

/** Outcome of trying bwrap once: its path and version, or why it cannot be used. */
export type BwrapProbe = { ok: true; bwrap: string; version: string } | { ok: false; reason: string };

/** Runs a trivial sandbox the way tasks will be run (PID namespace included), with a timeout. */
export function probeBwrap(systemPath: string): BwrapProbe {
  const bwrap = findExecutable('bwrap', systemPath);
  if (!bwrap) return { ok: false, reason: 'bubblewrap (bwrap) is not installed' };
  const truePath = findExecutable('true', systemPath) ?? '/bin/true';
  // The same command line a task gets, with nothing hidden or bound: what fails here fails every task.
  const run = spawnSync(
    bwrap,
    bwrapArgv({ hiddenDirs: [], hiddenFiles: [], readOnly: [], writable: [], cwd: '/' }, truePath, []),
    {
      env: { PATH: systemPath },
      timeout: 10_000,
      encoding: 'utf8',
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
  /** What a task must not see: the data folder, the task folder, keys. Missing paths are skipped. */
  hide: string[];
  /** The PATH tasks get; its folders stay visible even when they lie under /tmp. */
  systemPath: string;
  /** Test hook: how bwrap is tried. */
  probe?: (systemPath: string) => BwrapProbe;
}

/**
 * The sandbox policy of one server or runner: decided once (lazily, so CLI commands never try
 * bwrap), then applied by the process launcher to every app process that asks for it.
 */
export class TaskSandbox implements SpecWrapper {
  private decided: { status: SandboxStatus; bwrap: string | null } | undefined;

  constructor(private readonly o: TaskSandboxOptions) {}

  status(): SandboxStatus {
    return this.decide().status;
  }

  get active(): boolean {
    return this.decide().bwrap !== null;
  }

  /** The line every unsandboxed task's log starts with, and the server says at start; null when sandboxed. */
  get warning(): string | null {
    const s = this.status();
    return s.mode === 'off'
      ? `Tasks are not sandboxed: ${s.detail}; a task can read every file of the server's user, the database and secret.key included`
      : null;
  }

  /** For start-up: refuses GANTRY_TASK_SANDBOX=bwrap when bwrap does not work. */
  check(): SandboxStatus {
    const s = this.status();
    if (s.requested === 'bwrap' && s.mode !== 'bwrap')
      throw new ConfigError(`Invalid configuration: GANTRY_TASK_SANDBOX is bwrap but ${s.detail}`);
    return s;
  }

  /** `spec` run inside bwrap, with `writable` (the workspace, known_hosts) the only writable paths. */
  wrap(spec: ProcessSpec, writable: string[]): ProcessSpec {
    const bwrap = this.decide().bwrap;
    if (!bwrap) return spec;
    const searchPath = spec.env.PATH ?? this.o.systemPath;
    const command = findExecutable(spec.command, searchPath);
    // Same message as a failed spawn outside the sandbox, so "could not be started" reads the same.
    if (!command) throw new Error(`spawn ${spec.command} ENOENT`);
    const hidden = existing([
      ...this.o.hide,
      ...HOME_CREDENTIALS.flatMap(homeFolders),
      ...ensureDirs(homeFolders('.ansible/tmp')),
    ]);
    const hiddenDirs = topmost(hidden.filter((p) => isDir(p) && p !== '/' && !under('/tmp', p)));
    const covered = (p: string) => under('/tmp', p) || hiddenDirs.some((d) => under(d, p));
    const hiddenFiles = hidden.filter((p) => !isDir(p) && !covered(p));
    const readOnly = underTmp(
      [...searchPath.split(path.delimiter).filter((d) => path.isAbsolute(d)), command],
      hiddenDirs,
    );
    const layout = { hiddenDirs, hiddenFiles, readOnly, writable: existing(writable), cwd: real(spec.cwd) };
    return { ...spec, command: bwrap, args: bwrapArgv(layout, command, spec.args) };
  }

  private decide(): { status: SandboxStatus; bwrap: string | null } {
    if (this.decided) return this.decided;
    const requested = this.o.requested;
    if (requested === 'off') {
      this.decided = { status: { mode: 'off', requested, detail: 'GANTRY_TASK_SANDBOX is off' }, bwrap: null };
    } else {
      const probe = (this.o.probe ?? probeBwrap)(this.o.systemPath);
      this.decided = probe.ok
        ? { status: { mode: 'bwrap', requested, detail: `${probe.version} (${probe.bwrap})` }, bwrap: probe.bwrap }
        : { status: { mode: 'off', requested, detail: probe.reason }, bwrap: null };
    }
    return this.decided;
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
  config: Pick<Config, 'taskSandbox' | 'dataDir' | 'taskDir' | 'dbUrl' | 'systemPath'>,
): TaskSandbox {
  const sqlite = sqliteFile(config.dbUrl);
  return new TaskSandbox({
    requested: config.taskSandbox,
    hide: [config.dataDir, config.taskDir, ...(sqlite ? [path.dirname(sqlite)] : [])],
    systemPath: config.systemPath,
  });
}

/** A runner's policy: its work folder (keys, known_hosts, workspaces) and its private key are hidden. */
export function runnerTaskSandbox(
  config: Pick<RunnerConfig, 'taskSandbox' | 'workDir' | 'privateKeyFile' | 'systemPath'>,
): TaskSandbox {
  return new TaskSandbox({
    requested: config.taskSandbox,
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
