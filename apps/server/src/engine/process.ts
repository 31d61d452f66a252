import { spawn } from 'node:child_process';

export interface ProcessSpec {
  command: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
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
  start(spec: ProcessSpec, onLine: (line: string) => void): RunningProcess;
}

/**
 * Spawns with an argv array (never a shell) in a new process group, with stdin closed, and
 * hands every stdout/stderr line to `onLine` as soon as it is complete.
 */
export const nodeProcessLauncher: ProcessLauncher = {
  start(spec, onLine) {
    const child = spawn(spec.command, spec.args, {
      cwd: spec.cwd,
      env: spec.env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const splitter = () => {
      let rest = '';
      return {
        push(chunk: Buffer) {
          const text = rest + chunk.toString('utf8');
          const lines = text.split('\n');
          rest = lines.pop() ?? '';
          for (const l of lines) onLine(l.endsWith('\r') ? l.slice(0, -1) : l);
        },
        end() {
          if (rest) onLine(rest);
          rest = '';
        },
      };
    };
    const out = splitter();
    const err = splitter();
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => err.push(c));
    const done = new Promise<ProcessResult>((resolve) => {
      child.once('error', (e) => resolve({ code: null, signal: null, spawnError: e.message }));
      child.once('close', (code, signal) => {
        out.end();
        err.end();
        resolve({ code, signal });
      });
    });
    return {
      pid: child.pid,
      done,
      kill(signal) {
        if (!child.pid) return;
        try {
          process.kill(-child.pid, signal);
        } catch {
          // The group is already gone.
        }
      },
    };
  },
};
