import fs from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import type { OutputFlow } from './log-sink.js';
import { startChild, type NetworkPlan, type StartedChild } from './spawn-host.js';

export interface ProcessSpec {
  command: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  /**
   * Run inside the task sandbox with only these paths writable. Every app process sets it; only
   * the server's own helpers (git with hooks off, ssh-agent, ssh-add, all with a clean
   * environment) run outside.
   */
  sandbox?: {
    writable: string[];
    /**
     * Paths outside the workspace the process reads (an absolute file inventory an admin allowed):
     * shown read-only even under /tmp; never one in or holding a hidden path.
     */
    readable?: string[];
    /** False: no network at all is set up (ssh-agent needs none). */
    network?: boolean;
    /** The task's own relay to its Terraform HTTP backend: a host socket shown on 127.0.0.1:port inside. */
    forward?: { socket: string; port: number };
  };
  /** Set by the sandbox policy: run as this user (a root server's task user). */
  uid?: number;
  gid?: number;
  /**
   * Set by the sandbox policy: extra pipes the child gets (fd 3, 4, ...) and what the launcher
   * does with the started child; returns the clean-up for when it ends (its passwd copy).
   */
  attach?: { pipes: number; start(child: StartedChild): () => void };
  /** Set by the sandbox policy: the network the spawn helper gives the sandbox before its command runs. */
  network?: NetworkPlan;
  /**
   * Stdout as it comes, unsplit (UTF-8 decoded), instead of as lines to `onLine` (a command whose
   * output the engine reads: `terraform show -json`); stderr still goes to `onLine`.
   */
  captureStdout?: (chunk: string) => void;
}

export interface ProcessResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Set when the executable could not be started at all. */
  spawnError?: string;
}

export interface RunningProcess {
  readonly pid: number | undefined;
  readonly done: Promise<ProcessResult>;
  /** Signals the whole process group, so children of a script stop too. */
  kill(signal: NodeJS.Signals): void;
}

/** Starts processes; an adapter so the runner can be tested with a fake. */
export interface ProcessLauncher {
  /** `flow`: the output is not read while it reports itself saturated (the child then waits on its pipe). */
  start(spec: ProcessSpec, onLine: (line: string) => void, flow?: OutputFlow): RunningProcess;
}

/** Turns a spec into one that runs inside the sandbox (the TaskSandbox policy). */
export interface SpecWrapper {
  /** False when tasks are not sandboxed: specs run as they are. */
  readonly active: boolean;
  /** Throws when the program cannot be found (reported like a failed spawn). */
  wrap(spec: ProcessSpec, writable: string[]): ProcessSpec;
}

/**
 * The engine's one way to start processes: a spec asking for the sandbox is wrapped by the
 * policy, everything else (git, ssh-agent) runs as it is. Each process gets its own group, so a
 * stop reaches the children of a script too.
 */
export function createProcessLauncher(sandbox: SpecWrapper): ProcessLauncher {
  return {
    start(spec, onLine, flow) {
      if (!spec.sandbox) return spawnProcess(spec, onLine, false, flow);
      let wrapped: ProcessSpec;
      try {
        wrapped = sandbox.wrap(spec, spec.sandbox.writable);
      } catch (e) {
        return {
          pid: undefined,
          done: Promise.resolve({ code: null, signal: null, spawnError: (e as Error).message }),
          kill: () => undefined,
        };
      }
      return spawnProcess(wrapped, onLine, sandbox.active, flow);
    },
  };
}

/** A line longer than this is handed on in pieces, so output without newlines cannot grow without bound. */
export const MAX_LINE_CHARS = 64 * 1024;

/**
 * Spawns with an argv array (never a shell) in a new process group, with stdin closed, and
 * hands every stdout/stderr line to `onLine` as soon as it is complete. While `flow` is
 * saturated both pipes are paused: the child blocks on a full pipe instead of the server
 * buffering its output.
 */
function spawnProcess(
  spec: ProcessSpec,
  onLine: (line: string) => void,
  sandboxed: boolean,
  flow?: OutputFlow,
): RunningProcess {
  const child = startChild(spec.command, spec.args, {
    cwd: spec.cwd,
    env: spec.env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe', ...Array.from({ length: spec.attach?.pipes ?? 0 }, () => 'pipe' as const)],
    ...(spec.uid !== undefined ? { uid: spec.uid, gid: spec.gid } : {}),
    ...(spec.network ? { network: spec.network } : {}),
  });
  // Both pipes were asked for above.
  const stdout = child.stdout!;
  const stderr = child.stderr!;
  let release: (() => void) | null = null;
  let stopRequested: NodeJS.Signals | null = null;
  child.once('spawn', () => {
    if (spec.attach && child.pid) release = spec.attach.start(child);
    if (stopRequested) signalRun(stopRequested);
  });
  const splitter = () => {
    let rest = '';
    // Keeps a character split across two reads whole.
    const decoder = new StringDecoder('utf8');
    return {
      push(chunk: Buffer) {
        const text = rest + decoder.write(chunk);
        const lines = text.split('\n');
        rest = lines.pop() ?? '';
        for (const l of lines) onLine(l.endsWith('\r') ? l.slice(0, -1) : l);
        while (rest.length > MAX_LINE_CHARS) {
          onLine(rest.slice(0, MAX_LINE_CHARS));
          rest = rest.slice(MAX_LINE_CHARS);
        }
      },
      end() {
        rest += decoder.end();
        if (rest) onLine(rest);
        rest = '';
      },
    };
  };
  const capture = spec.captureStdout;
  const captureDecoder = new StringDecoder('utf8');
  const out = capture
    ? { push: (c: Buffer) => capture(captureDecoder.write(c)), end: () => capture(captureDecoder.end()) }
    : splitter();
  const err = splitter();
  let paused = false;
  const throttle = () => {
    if (!flow || paused || !flow.saturated) return;
    paused = true;
    stdout.pause();
    stderr.pause();
    flow.onDrain(() => {
      paused = false;
      stdout.resume();
      stderr.resume();
    });
  };
  stdout.on('data', (c: Buffer) => {
    out.push(c);
    throttle();
  });
  stderr.on('data', (c: Buffer) => {
    err.push(c);
    throttle();
  });
  const done = new Promise<ProcessResult>((resolve) => {
    child.once('error', (e) => {
      release?.();
      resolve({ code: null, signal: null, spawnError: e.message });
    });
    child.once('close', (code, signal) => {
      release?.();
      out.end();
      err.end();
      resolve({ code, signal });
    });
  });
  const signalRun = (signal: NodeJS.Signals) => {
    if (!child.pid) return;
    // bwrap itself dies on SIGTERM and then SIGKILLs the whole sandbox: a polite stop goes to
    // the processes inside only (their own session, so found by parentage), so a script can
    // still trap it and clean up.
    let groupSignal = signal;
    if (sandboxed && signal !== 'SIGKILL') {
      const inside = signalDescendants(child.pid, signal);
      if (inside === 'signalled') return;
      // Only bwrap's own processes: its namespace init ignores a SIGTERM and, before its set-up
      // is done, outlives the bwrap it came from. Nothing of the task runs yet to clean up.
      if (inside === 'not started') groupSignal = 'SIGKILL';
    }
    try {
      process.kill(-child.pid, groupSignal);
    } catch {
      // The group is already gone.
    }
  };
  return {
    get pid() {
      return child.pid;
    },
    done,
    kill(signal) {
      // Not started yet (the helper has not answered): the signal goes as soon as it has.
      if (!child.pid) stopRequested = signal;
      else signalRun(signal);
    },
  };
}

/**
 * Signals every descendant of `root` (not `root` itself). Signals none when /proc cannot be read,
 * or when the sandbox has not started the task's command yet (only bwrap's own processes are
 * there, the command waiting for its network, say): the caller then ends the sandbox itself, so a
 * stop that comes during start-up is never lost.
 */
function signalDescendants(root: number, signal: NodeJS.Signals): 'signalled' | 'not started' | 'unreadable' {
  const parents = new Map<number, { ppid: number; name: string }>();
  try {
    for (const n of fs.readdirSync('/proc')) {
      if (!/^\d+$/.test(n)) continue;
      try {
        const stat = fs.readFileSync(`/proc/${n}/stat`, 'utf8');
        // "pid (name) state ppid ...": the name may hold spaces and parentheses.
        const close = stat.lastIndexOf(')');
        const name = stat.slice(stat.indexOf('(') + 1, close);
        parents.set(Number(n), { ppid: Number(stat.slice(close + 2).split(' ')[1]), name });
      } catch {
        // Gone meanwhile.
      }
    }
  } catch {
    return 'unreadable';
  }
  const below = new Set([root]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const [pid, { ppid }] of parents) {
      if (!below.has(pid) && below.has(ppid)) {
        below.add(pid);
        grew = true;
      }
    }
  }
  below.delete(root);
  if (![...below].some((pid) => parents.get(pid)?.name !== 'bwrap')) return 'not started';
  for (const pid of below) {
    try {
      process.kill(pid, signal);
    } catch {
      // Gone meanwhile.
    }
  }
  return 'signalled';
}
